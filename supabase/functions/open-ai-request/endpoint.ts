import { aiEndpoints } from "@shared/contract/ai.ts";
import { afterCommit } from "../_shared/after_commit.ts";
import { chatCompletion } from "../_shared/ai/chat_completion.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { env } from "../_shared/env.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(aiEndpoints, "open-ai-request", {
  run: async ({ body, tx }) => {
    if (!env.OPENAI_BASE_URL || !env.OPENAI_API_KEY) {
      throw fail("AI generation is not configured on this server");
    }
    const provider = { baseUrl: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY };
    const model = chooseModel(body.model);
    // The tier check and the per-user budget are the database's; a claim is spent even when the
    // provider then fails, so retries cannot hammer it.
    await tx`select private.claim_ai_request()`;
    return afterCommit(() => chatCompletion(provider, model, body.content));
  },
});

/** The caller's model when the server offers it, else the server's first (the client's is a hint). */
function chooseModel(requested: string | undefined): string {
  const offered = env.OPENAI_MODELS.split(",").map((m) => m.trim()).filter(Boolean);
  const fallback = offered[0] ?? "gpt-4o-mini";
  return requested !== undefined && offered.includes(requested) ? requested : fallback;
}
