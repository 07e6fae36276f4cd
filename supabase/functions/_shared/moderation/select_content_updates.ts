import type { z } from "zod";
import type {
  ContentUpdate,
  CreateContentUpdateBody,
  FindContentUpdateBody,
} from "@shared/content_updates.ts";
import type { Tx } from "../db/pool.ts";

type Proposal = z.input<typeof ContentUpdate>;

/** A proposal in the interface's shape (status object, voter lists), from `cu` and its votes. */
const PROPOSAL = `
  cu.id, cu.created_at, cu.user_id, cu.type, cu.ref_id, cu.action, cu.data, cu.content_source_id,
  jsonb_strip_nulls(jsonb_build_object(
    'state', cu.state,
    'discord_user_id', cu.decided_by_discord_user_id,
    'discord_user_name', cu.decided_by_discord_user_name
  )) as status,
  coalesce(votes.up, '[]') as upvotes,
  coalesce(votes.down, '[]') as downvotes,
  cu.discord_msg_id`;

/** The votes `PROPOSAL` reads, in the order they were cast. */
const WITH_VOTES = `
  left join lateral (
    select
      jsonb_agg(jsonb_build_object('discord_user_id', v.discord_user_id)
        order by v.voted_at, v.discord_user_id) filter (where v.vote = 'UP') as up,
      jsonb_agg(jsonb_build_object('discord_user_id', v.discord_user_id)
        order by v.voted_at, v.discord_user_id) filter (where v.vote = 'DOWN') as down
    from public.content_update_vote v
    where v.content_update_id = cu.id
  ) votes on true`;

/**
 * Reads proposals in the interface's shape under the caller's read policies, filtered as
 * find-content-update says, sorted by id. One statement, sent at once.
 */
export async function selectContentUpdates(
  tx: Tx,
  filter: FindContentUpdateBody,
): Promise<Proposal[]> {
  const ids = filter.id === undefined
    ? null
    : typeof filter.id === "number"
    ? [filter.id]
    : filter.id;
  const from = filter.created ? filter.created.from ?? "1970-01-01T00:00:00Z" : null;
  const to = filter.created ? filter.created.to ?? new Date().toISOString() : null;
  return await tx.unsafe<Proposal[]>(
    `select ${PROPOSAL} from public.content_update cu ${WITH_VOTES}
    where ($1::bigint[] is null or cu.id = any($1::bigint[]))
      and ($2::uuid is null or cu.user_id = $2::uuid)
      and ($3::public.content_update_state is null or cu.state = $3::public.content_update_state)
      and ($4::timestamptz is null or cu.created_at between $4::timestamptz and $5::timestamptz)
    order by cu.id`,
    [ids, filter.user_id ?? null, filter.state ?? null, from, to] as never[],
    { prepare: true },
  );
}

/** A new proposal, and the names the moderation bot's message shows beside it. */
export interface InsertedProposal {
  proposal: Proposal;
  submitterName: string;
  sourceName: string;
}

/**
 * Inserts the caller's proposal and reads it back in the interface's shape, in one statement sent
 * at once. The insert policy admits only the caller's own proposals to sources they can read; the
 * trigger checks the fields and the target record.
 */
export async function insertContentUpdate(
  tx: Tx,
  body: CreateContentUpdateBody,
): Promise<InsertedProposal | null> {
  const [row] = await tx.unsafe<(Proposal & { submitter_name: string; source_name: string })[]>(
    `with cu as (
       insert into public.content_update (type, ref_id, action, data, content_source_id)
       values ($1, $2::bigint, $3, $4::text::jsonb, $5::bigint)
       returning *
     )
     select ${PROPOSAL},
       coalesce((select u.display_name from public.public_user u
                 where u.user_id = (select auth.uid())), '') as submitter_name,
       coalesce((select s.name from public.content_source s
                 where s.id = cu.content_source_id), '') as source_name
     from cu ${WITH_VOTES}`,
    [
      body.type,
      body.ref_id ?? null,
      body.action,
      JSON.stringify(body.data),
      body.content_source_id,
    ] as never[],
    { prepare: true },
  );
  if (!row) return null;
  const { submitter_name, source_name, ...proposal } = row;
  return { proposal, submitterName: submitter_name, sourceName: source_name };
}
