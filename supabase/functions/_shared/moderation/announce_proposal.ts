import type { z } from "zod";
import type { ContentUpdate } from "@shared/content_updates.ts";
import type { AfterCommitContext } from "../after_commit.ts";
import { env } from "../env.ts";
import { errorMessage } from "../error_message.ts";
import { log } from "../log.ts";
import { postToBot } from "./post_to_bot.ts";

type Proposal = z.input<typeof ContentUpdate>;

/** Who proposed it and in which source, as the bot shows them. */
export interface ProposalContext {
  userId: string;
  displayName: string;
  sourceName: string;
}

/**
 * After the proposal is committed: posts it to the moderation bot when a webhook is configured
 * and records the bot's message id in a second short transaction. Any failure is logged and the
 * proposal is returned without a message id: it is stored either way.
 */
export async function announceProposal(
  ctx: AfterCommitContext,
  proposal: Proposal,
  about: ProposalContext,
): Promise<Proposal> {
  const url = env.CONTENT_UPDATE_WEBHOOK_URL;
  if (!url) return proposal;
  const secret = env.CONTENT_UPDATE_SECRET;
  if (!secret) {
    log.warn("content_update_not_posted", {
      content_update_id: proposal.id,
      reason: "CONTENT_UPDATE_WEBHOOK_URL is set but CONTENT_UPDATE_SECRET is not",
    });
    return proposal;
  }
  const outcome = await postToBot(url, secret, {
    content_update: proposal,
    submitter: { user_id: about.userId, display_name: about.displayName },
    content_source: { id: proposal.content_source_id, name: about.sourceName },
  });
  if (!outcome.ok) {
    log.warn("content_update_not_posted", {
      content_update_id: proposal.id,
      reason: outcome.reason,
    });
    return proposal;
  }
  try {
    const [row] = await ctx.transaction((tx) =>
      tx<{ saved: boolean }[]>`
        select private.record_content_update_message(${proposal.id}, ${outcome.discordMsgId}) as saved`
    );
    if (row?.saved) return { ...proposal, discord_msg_id: outcome.discordMsgId };
    log.warn("content_update_message_not_saved", {
      content_update_id: proposal.id,
      reason: "the proposal already has a message id or is gone",
    });
  } catch (e) {
    log.warn("content_update_message_not_saved", {
      content_update_id: proposal.id,
      reason: errorMessage(e),
    });
  }
  return proposal;
}
