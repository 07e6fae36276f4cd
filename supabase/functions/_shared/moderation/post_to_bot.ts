import { type ContentUpdateWebhook, ContentUpdateWebhookReply } from "@shared/content_updates.ts";
import { errorMessage } from "../error_message.ts";

/** How long the moderation bot gets to answer before the proposal goes on without its message. */
export const BOT_TIMEOUT_MS = 3_000;

/** The bot's message id, or why there is none. */
export type BotOutcome = { ok: true; discordMsgId: string } | { ok: false; reason: string };

/**
 * Posts a new proposal to the moderation bot (bearer: the service secret) and reads the id of the
 * message it posted. Never throws: a bot that is down, slow or answers nonsense is an outcome the
 * caller logs, because the proposal itself is already stored.
 */
export async function postToBot(
  url: string,
  secret: string,
  payload: ContentUpdateWebhook,
  timeoutMs = BOT_TIMEOUT_MS,
): Promise<BotOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify(payload),
      signal,
    });
    const text = await res.text();
    if (!res.ok) return { ok: false, reason: `bot answered HTTP ${res.status}` };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: "bot answered with a body that is not JSON" };
    }
    const reply = ContentUpdateWebhookReply.safeParse(json);
    if (!reply.success) return { ok: false, reason: "bot answered without a valid discord_msg_id" };
    return { ok: true, discordMsgId: reply.data.discord_msg_id };
  } catch (e) {
    if (signal.aborted) return { ok: false, reason: `bot did not answer within ${timeoutMs} ms` };
    // The platform's Deno names the URL in the error, and the webhook's URL carries its token.
    const message = errorMessage(e).replaceAll(
      /\w+:\/\/[^\s)]+/g,
      "<url>",
    );
    return { ok: false, reason: `bot unreachable: ${message}` };
  }
}
