import { moderationEndpoints } from "@shared/contract/moderation.ts";
import { afterCommit } from "../_shared/after_commit.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { announceProposal } from "../_shared/moderation/announce_proposal.ts";
import { insertContentUpdate } from "../_shared/moderation/select_content_updates.ts";

export const handler = endpoint(moderationEndpoints, "create-content-update", {
  run: async ({ body, tx }) => {
    const created = await insertContentUpdate(tx, body);
    if (!created) throw fail("Content update not found");
    const { proposal, submitterName, sourceName } = created;
    const about = { userId: proposal.user_id, displayName: submitterName, sourceName };
    // The bot is called after the insert commits: a slow bot holds no transaction open.
    return afterCommit((ctx) => announceProposal(ctx, proposal, about));
  },
});
