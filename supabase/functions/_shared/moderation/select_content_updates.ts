import type { z } from "zod";
import type { ContentUpdate, FindContentUpdateBody } from "@shared/content_updates.ts";
import type { Tx } from "../db/pool.ts";

/**
 * Reads proposals in the interface's shape (status object, voter lists) under the caller's read
 * policies, filtered as find-content-update says, sorted by id.
 */
export async function selectContentUpdates(
  tx: Tx,
  filter: FindContentUpdateBody,
): Promise<z.input<typeof ContentUpdate>[]> {
  const ids = filter.id === undefined
    ? null
    : typeof filter.id === "number"
    ? [filter.id]
    : filter.id;
  const from = filter.created ? filter.created.from ?? "1970-01-01T00:00:00Z" : null;
  const to = filter.created ? filter.created.to ?? new Date().toISOString() : null;
  return await tx<z.input<typeof ContentUpdate>[]>`
    select cu.id, cu.created_at, cu.user_id, cu.type, cu.ref_id, cu.action, cu.data,
      cu.content_source_id,
      jsonb_strip_nulls(jsonb_build_object(
        'state', cu.state,
        'discord_user_id', cu.decided_by_discord_user_id,
        'discord_user_name', cu.decided_by_discord_user_name
      )) as status,
      coalesce(votes.up, '[]') as upvotes,
      coalesce(votes.down, '[]') as downvotes,
      cu.discord_msg_id
    from public.content_update cu
    left join lateral (
      select
        jsonb_agg(jsonb_build_object('discord_user_id', v.discord_user_id)
          order by v.voted_at, v.discord_user_id) filter (where v.vote = 'UP') as up,
        jsonb_agg(jsonb_build_object('discord_user_id', v.discord_user_id)
          order by v.voted_at, v.discord_user_id) filter (where v.vote = 'DOWN') as down
      from public.content_update_vote v
      where v.content_update_id = cu.id
    ) votes on true
    where (${ids}::bigint[] is null or cu.id = any(${ids}::bigint[]))
      and (${filter.user_id ?? null}::uuid is null or cu.user_id = ${filter.user_id ?? null}::uuid)
      and (${filter.state ?? null}::public.content_update_state is null
        or cu.state = ${filter.state ?? null}::public.content_update_state)
      and (${from}::timestamptz is null
        or cu.created_at between ${from}::timestamptz and ${to}::timestamptz)
    order by cu.id`.execute();
}
