import { z } from "zod";
import { ErrorReply } from "../envelope.ts";
import { log } from "../log.ts";

/** How long the provider gets to answer a completion. */
export const COMPLETION_TIMEOUT_MS = 60_000;

/** What a provider refusing for load (HTTP 429) becomes, in the reference's words. */
export const PROVIDER_BUSY = "Too many requests, please try again later.";

/** What any other provider failure becomes: the caller can only retry later. */
export const PROVIDER_FAILED = "The AI provider could not answer, please try again later.";

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

/** Where and how to reach an OpenAI-compatible chat-completions API. */
export interface Provider {
  baseUrl: string;
  apiKey: string;
}

/**
 * Asks the provider for one chat completion of `prompt` and returns its text. A refusal, an
 * unreachable or slow provider, or an answer without a completion is an `ErrorReply`; the reason
 * is logged without the key or the prompt.
 */
export async function chatCompletion(
  provider: Provider,
  model: string,
  prompt: string,
  timeoutMs = COMPLETION_TIMEOUT_MS,
): Promise<string> {
  const url = `${provider.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${provider.apiKey}`,
      },
      body: JSON.stringify({ model, messages: [{ role: "user", content: prompt }] }),
      signal,
    });
    text = await res.text();
  } catch (e) {
    const reason = signal.aborted
      ? `no answer within ${timeoutMs} ms`
      : `unreachable: ${e instanceof Error ? e.name : "unknown"}`;
    log.warn("ai_provider_failed", { reason });
    throw new ErrorReply(PROVIDER_FAILED);
  }
  if (res.status === 429) {
    log.warn("ai_provider_failed", { reason: "HTTP 429" });
    throw new ErrorReply(PROVIDER_BUSY);
  }
  if (!res.ok) {
    log.warn("ai_provider_failed", { reason: `HTTP ${res.status}` });
    throw new ErrorReply(PROVIDER_FAILED);
  }
  const parsed = Completion.safeParse(safeJson(text));
  if (!parsed.success) {
    log.warn("ai_provider_failed", { reason: "answer without a completion" });
    throw new ErrorReply(PROVIDER_FAILED);
  }
  return parsed.data.choices[0]?.message.content ?? "";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
