import { z } from "zod";
import { Id, JsonObject, Timestamp, UserId } from "./common.ts";

/** Supporter tier names as the payment provider calls them; the database stores levels 1 to 4. */
export const SupporterTier = z.enum(["ADVOCATE", "WANDERER", "LEGEND", "GAME-MASTER"]).meta({
  id: "SupporterTier",
});
export type SupporterTier = z.infer<typeof SupporterTier>;

/** The tier name for a stored supporter level (0 means none). */
export function supporterTierName(level: number): SupporterTier | null {
  return SupporterTier.options[level - 1] ?? null;
}

/** One subscribed content source as the profile stores it. */
export const ContentSourceSubscription = z.object({
  source_id: Id,
  source_name: z.string().trim().max(200),
  added_at: z.string().max(40),
}).meta({ id: "ContentSourceSubscription" });
export type ContentSourceSubscription = z.infer<typeof ContentSourceSubscription>;

/** The whole subscription list; each source at most once. */
export const ContentSourceSubscriptions = z.array(ContentSourceSubscription).max(1000).refine(
  (list) => new Set(list.map((s) => s.source_id)).size === list.length,
  "each source_id may appear only once",
);

/** The payment-provider part of a profile: only the tier is kept by this service. */
export const ProfilePatreon = z.object({ tier: SupporterTier.nullable() });

/**
 * An API client as a profile lists it, under the reference's `api.clients`: its id as a string
 * (the web client compares it with the `client_id` of the authorization URL and of a grant), never
 * a key (keys are shown once, by create-api-client).
 */
export const ProfileApiClient = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  created_at: Timestamp.optional(),
  last_used_at: Timestamp.nullable().optional(),
}).meta({ id: "ProfileApiClient" });
export type ProfileApiClient = z.infer<typeof ProfileApiClient>;

/** The `api` block of a profile. */
export const ProfileApi = z.object({ clients: z.array(ProfileApiClient) });

/**
 * A profile as anyone signed in may see it: no email, keys, payment data or private settings. Its
 * `api.clients` lists only the clients the viewer has authorized on one of their own characters.
 */
export const PublicProfile = z.object({
  id: Id,
  user_id: UserId,
  created_at: Timestamp,
  display_name: z.string(),
  image_url: z.string().nullable(),
  background_image_url: z.string().nullable(),
  site_theme: JsonObject,
  summary: z.string().nullable(),
  is_admin: z.boolean(),
  is_mod: z.boolean(),
  is_developer: z.boolean(),
  is_community_paragon: z.boolean(),
  patreon: ProfilePatreon,
  api: ProfileApi,
}).meta({ id: "PublicProfile" });
export type PublicProfile = z.infer<typeof PublicProfile>;

/**
 * A GAME-MASTER's group as its GM sees it: the access code members join with (null until
 * gm-regenerate-code first creates the group).
 */
export const ProfileGameMaster = z.object({
  access_code: z.string().nullable(),
  /** For a member of a GAME-MASTER's group: whose group, which lends supporter levels 1 and 2. */
  virtual_tier: z.object({
    game_master_user_id: UserId,
    game_master_name: z.string(),
    added_at: Timestamp,
  }).optional(),
}).meta({ id: "ProfileGameMaster" });
export type ProfileGameMaster = z.infer<typeof ProfileGameMaster>;

/** The payment-provider part of the caller's own profile: the tier and, for a GAME-MASTER, the group. */
export const OwnProfilePatreon = ProfilePatreon.extend({
  game_master: ProfileGameMaster.nullable(),
});

/**
 * The caller's own profile: the public one plus what only its owner sees, with every API client
 * of theirs in `api.clients`.
 */
export const OwnProfile = PublicProfile.extend({
  patreon: OwnProfilePatreon,
  organized_play_id: z.string().nullable(),
  subscribed_content_sources: z.array(ContentSourceSubscription),
  deactivated: z.boolean(),
}).meta({ id: "OwnProfile" });
export type OwnProfile = z.infer<typeof OwnProfile>;

/**
 * Body of get-user: nothing for the caller's own profile, or another user by UUID or profile id.
 * An unknown key is refused, so a misspelled id cannot silently return the caller's own profile.
 * With an API key only `{}` is taken (a key reads its owner's profile, never another's).
 */
export const GetUserBody = z.strictObject({
  id: UserId.optional(),
  // The reference's `_id`: a profile id (a numeric string is read as that number), or a user's
  // UUID as the web app's consent page sends it.
  _id: z.union([
    UserId,
    Id.meta({
      type: "integer",
      exclusiveMinimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
    }),
  ]).meta({
    description:
      "Another user's profile id (the `id` of a public profile), or their UUID (as `id` takes it)",
  }).optional(),
});
export type GetUserBody = z.infer<typeof GetUserBody>;

// The document's pattern says what zod's conversion of the protocol rule leaves out.
const httpUrl = z.url({ protocol: /^https?$/ }).max(2000).meta({
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
});
// Characters, as every other length: an emoji is one (a string's length counts two).
const siteTheme = JsonObject.refine(
  (theme) => [...JSON.stringify(theme)].length <= 4000,
  "site_theme is limited to 4000 characters of JSON",
);

/** An image URL, or `""` (what the web client sends for a cleared image), which clears it. */
const imageUrl = z.union([z.literal("").transform(() => null), httpUrl]).nullable().optional();

/**
 * One entry of the web app's API client list (its Developer settings): a client it lists (`id`
 * as get-user gave it), or one it has just made, with the key the browser drew
 * (`crypto.randomUUID()`). A key must be a random (version 4) UUID in lower case, as the browser
 * draws them; the server keeps only its hash.
 */
export const ApiClientListEntry = z.looseObject({
  id: z.union([z.string().max(100), z.number()]).optional(),
  name: z.string().trim().min(1).max(100),
  description: z.string().max(500).nullable().optional(),
  api_key: z.string().regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    "expected a random (version 4) UUID in lower case",
  ).optional(),
}).meta({ id: "ApiClientListEntry" });
export type ApiClientListEntry = z.infer<typeof ApiClientListEntry>;

/**
 * The `api` block the account page sends with every profile change. With `clients`, the caller's
 * API clients become exactly the listed ones: new entries are created with their keys, listed ones
 * renamed (or given the new key the page drew), unlisted ones revoked. Without it nothing changes.
 */
export const ApiClientList = z.looseObject({
  clients: z.array(ApiClientListEntry).max(10).optional(),
}).meta({ id: "ApiClientList" });
export type ApiClientList = z.infer<typeof ApiClientList>;

const displayNameLength = "expected 1 to 100 characters after trimming spaces";

/**
 * Body of update-user: the editable fields, each optional (a partial update). Fields that are not
 * editable (tier, role flags, ids, timestamps) are dropped here and also refused by the database's
 * column grants.
 */
export const UpdateUserBody = z.object({
  // A blank name would leave the person nameless wherever profiles are shown (GM groups, grants).
  display_name: z.string().trim().min(1, displayNameLength).max(100, displayNameLength).optional(),
  summary: z.string().max(5000).nullable().optional(),
  image_url: imageUrl,
  background_image_url: imageUrl,
  organized_play_id: z.string().trim().max(100).nullable().optional(),
  site_theme: siteTheme.optional(),
  subscribed_content_sources: ContentSourceSubscriptions.optional(),
  api: ApiClientList.nullable().optional(),
});
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

/** Body of delete-user: no parameters. */
export const DeleteUserBody = z.object({});

/** What delete-user answers: the deleted account's UUID. */
export const DeletedUser = z.object({ userId: UserId }).meta({ id: "DeletedUser" });
export type DeletedUser = z.infer<typeof DeletedUser>;
