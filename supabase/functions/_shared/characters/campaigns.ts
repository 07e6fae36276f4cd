import {
  Campaign,
  CAMPAIGN_WRITABLE_FIELDS,
  type CreateCampaignBody,
  type FindCampaignBody,
} from "@shared/campaigns.ts";
import type { z } from "zod";
import type { Tx } from "../db/pool.ts";
import { fail } from "../envelope.ts";
import { columnValues } from "./columns.ts";

type CampaignRow = z.input<typeof Campaign>;

/** The columns a caller may select; the join key is read through private.campaign_join_key. */
const COLUMNS = Object.keys(Campaign.shape).filter((column) => column !== "join_key");

/**
 * What a write returns to the campaign's owner: its columns and its join key, read through its
 * accessor, which (volatile) sees the row the same statement wrote.
 */
function returnedWithJoinKey(tx: Tx) {
  return tx`returning ${tx(COLUMNS)}, private.campaign_join_key(id) as join_key`;
}

/** A campaign as selected, its join key null where the caller may not see it. */
type SelectedCampaign = Omit<CampaignRow, "join_key"> & { join_key: string | null };

/** The campaign as answered: a key the caller may not see is left out, not null. */
function withoutNullKey({ join_key, ...campaign }: SelectedCampaign): CampaignRow {
  return join_key === null ? campaign : { ...campaign, join_key };
}

const JSON_COLUMNS: ReadonlySet<(typeof CAMPAIGN_WRITABLE_FIELDS)[number]> = new Set([
  "description",
  "notes",
  "recommended_options",
  "recommended_variants",
  "recommended_content_sources",
  "custom_operations",
  "meta_data",
]);

/**
 * Creates a campaign for the caller, or with `id` writes the given fields of one they own. The
 * join key and the supporter-level check are the database's (trigger on public.campaign).
 */
export async function saveCampaign(tx: Tx, body: CreateCampaignBody): Promise<CampaignRow> {
  const { id, ...patch } = body;
  const values = columnValues(tx, patch, CAMPAIGN_WRITABLE_FIELDS, JSON_COLUMNS);
  const keys = Object.keys(values);
  if (id === undefined) {
    if (patch.name === undefined) throw fail("Missing required field: name", { field: "name" });
    const [row] = await tx<SelectedCampaign[]>`
      insert into public.campaign ${tx(values, keys)} ${returnedWithJoinKey(tx)}`;
    if (!row) throw new Error("Insert into campaign returned no row");
    return withoutNullKey(row);
  }
  const assignments = keys.length > 0 ? tx(values, keys) : tx`name = name`;
  // The update changes nothing the caller does not own (policies); the check names the refusal.
  assertOwnCampaign(tx, id);
  const [row] = await tx<SelectedCampaign[]>`
    update public.campaign set ${assignments} where id = ${id} ${returnedWithJoinKey(tx)}`;
  if (!row) throw new Error("Campaign update matched no row although the caller owns it");
  return withoutNullKey(row);
}

/**
 * The statement that refuses unless the caller owns the campaign (`private.assert_own_campaign`):
 * `Campaign not found` when they cannot see it, `You do not have access to this campaign` when
 * they see it as a player. Sent ahead of the write it guards, its refusal is the answer and the
 * write never runs.
 */
export function assertOwnCampaign(tx: Tx, id: number) {
  return tx`select private.assert_own_campaign(${id})`;
}

/**
 * The campaigns find-campaign returns, sorted by id. With `join_key`, the campaign holding that
 * exact key (and a join grant for a signed-in caller); otherwise those the caller may read. The
 * key itself is shown only to the owner and to a caller who supplied it.
 */
export async function findCampaigns(
  tx: Tx,
  body: FindCampaignBody,
  signedIn: boolean,
): Promise<CampaignRow[]> {
  if (body.id === undefined && body.user_id === undefined && body.join_key === undefined) {
    return [];
  }
  if (body.join_key === undefined && !signedIn) return [];
  const ids = body.id === undefined ? null : typeof body.id === "number" ? [body.id] : body.id;
  const source = body.join_key === undefined
    ? tx`public.campaign`
    : tx`private.find_campaign_by_join_key(${body.join_key})`;
  // The key comes from the table only through its accessor (the owner's), and from a lookup by
  // key to the caller who supplied it.
  const joinKey = body.join_key === undefined
    ? tx`private.campaign_join_key(c.id)`
    : tx`c.join_key`;
  const rows = await tx<SelectedCampaign[]>`
    select ${tx(COLUMNS.map((column) => `c.${column}`))}, ${joinKey} as join_key
    from ${source} c
    where true
      ${ids === null ? tx`` : tx`and c.id = any(${ids}::bigint[])`}
      ${body.user_id === undefined ? tx`` : tx`and c.user_id = ${body.user_id}::uuid`}
    order by c.id`;
  return rows.map(withoutNullKey);
}
