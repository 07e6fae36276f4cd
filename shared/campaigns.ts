import { z } from "zod";
import { Id, IdFilter, JsonObject, SaveId, Timestamp, UserId } from "./common.ts";
import { EnabledContentSources } from "./characters.ts";

// A campaign and the bodies of create-campaign, find-campaign, reset-campaign-key and
// remove-from-campaign.

/** A campaign's join key: two chunks of 6 lowercase letters and digits, e.g. `k3f9a1-x0b7qe`. */
export const JoinKey = z.string().regex(/^[0-9a-z]{6}-[0-9a-z]{6}$/).meta({ id: "JoinKey" });

/** The fields a campaign's owner may write. */
const writable = {
  name: z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'")),
  // The web client writes plain text; the interface names an object with `contents`. Both are
  // kept as sent and answered as stored.
  description: z.union([
    z.string().max(100_000),
    z.looseObject({ contents: JsonObject.optional() }),
  ]),
  notes: JsonObject,
  recommended_options: JsonObject,
  recommended_variants: JsonObject,
  recommended_content_sources: EnabledContentSources,
  custom_operations: z.array(JsonObject).max(5_000),
  meta_data: JsonObject,
};

/** The columns of a campaign its owner may write. */
export const CAMPAIGN_WRITABLE_FIELDS = Object.keys(writable) as (keyof typeof writable)[];

/**
 * A campaign as stored. `join_key` is present only for its owner and for a caller who looked the
 * campaign up by that key.
 */
export const Campaign = z.object({
  id: Id,
  created_at: Timestamp,
  user_id: UserId,
  join_key: z.string().optional(),
  ...writable,
}).meta({ id: "Campaign" });
export type Campaign = z.infer<typeof Campaign>;

/**
 * Body of create-campaign: a new campaign (`name` required; the server makes the join key), or
 * with `id` a partial update of one the caller owns. Other keys are ignored.
 */
export const CreateCampaignBody = z.object(writable).partial().extend({ id: SaveId }).meta({
  id: "CreateCampaignBody",
});
export type CreateCampaignBody = z.infer<typeof CreateCampaignBody>;

/** Body of find-campaign: filters ANDed, unknown keys refused; with none the answer is []. */
export const FindCampaignBody = z.strictObject({
  id: IdFilter.optional(),
  user_id: UserId.optional(),
  join_key: z.string().trim().min(1).max(100).optional(),
}).meta({ id: "FindCampaignBody" });
export type FindCampaignBody = z.infer<typeof FindCampaignBody>;

/** Body of reset-campaign-key. */
export const ResetCampaignKeyBody = z.object({ id: Id }).meta({ id: "ResetCampaignKeyBody" });
export type ResetCampaignKeyBody = z.infer<typeof ResetCampaignKeyBody>;

/** What reset-campaign-key returns: the new key. */
export const ResetCampaignKeyResult = z.object({ join_key: JoinKey });

/** Body of remove-from-campaign. */
export const RemoveFromCampaignBody = z.object({ character_id: Id, campaign_id: Id }).meta({
  id: "RemoveFromCampaignBody",
});
export type RemoveFromCampaignBody = z.infer<typeof RemoveFromCampaignBody>;
