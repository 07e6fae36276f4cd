import { moderationEndpoints } from "@shared/contract/moderation.ts";
import { afterCommit } from "../_shared/after_commit.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { announceProposal } from "../_shared/moderation/announce_proposal.ts";
import { selectContentUpdates } from "../_shared/moderation/select_content_updates.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint(moderationEndpoints, "create-content-update", {
  run: async ({ body, tx }) => {
    // The insert policy admits only the caller's own proposals to sources they can read; the
    // trigger checks the fields and the target record.
    const [created] = await tx<{ id: number }[]>`
      insert into public.content_update (type, ref_id, action, data, content_source_id)
      values (${body.type}, ${body.ref_id ?? null}, ${body.action},
        ${JSON.stringify(body.data)}::text::jsonb, ${body.content_source_id})
      returning id`;
    const [proposal] = created ? await selectContentUpdates(tx, { id: created.id }) : [];
    if (!proposal) throw fail("Content update not found");
    const [names] = await tx<{ display_name: string | null; source_name: string | null }[]>`
      select
        (select u.display_name from public.public_user u where u.user_id = (select auth.uid()))
          as display_name,
        (select s.name from public.content_source s where s.id = ${body.content_source_id})
          as source_name`;
    const about = {
      userId: proposal.user_id,
      displayName: names?.display_name ?? "",
      sourceName: names?.source_name ?? "",
    };
    // The bot is called after the insert commits: a slow bot holds no transaction open.
    return afterCommit((ctx) => announceProposal(ctx, proposal, about));
  },
}));
