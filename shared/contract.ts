/**
 * The contract as data: every endpoint of the API by function name, with the credentials it
 * accepts, its body and result schemas, its summary and its body cap. The typed client
 * (`shared/client.ts`), the OpenAPI document (`scripts/tools/openapi.ts`) and the functions
 * (`endpoint(name, ...)` in `supabase/functions/_shared/endpoint.ts`) all read this table; a
 * function folder adds only what is server-side. The find and create endpoints of content are
 * derived from the registry of content types (`shared/content_types.ts`).
 */
import { z } from "zod";
import {
  ApiClient,
  CreateApiClientBody,
  CreatedApiClient,
  DeleteApiClientBody,
  FindApiClientBody,
} from "./accounts.ts";
import {
  Campaign,
  CreateCampaignBody,
  FindCampaignBody,
  RemoveFromCampaignBody,
  ResetCampaignKeyBody,
  ResetCampaignKeyResult,
} from "./campaigns.ts";
import {
  ApiClientInfo,
  AuthorizedClient,
  CharacterGrant,
  FindCharacterAccessBody,
  GetApiClientInfoBody,
  GrantCharacterAccessBody,
  RevokeCharacterAccessBody,
} from "./character_access.ts";
import {
  Character,
  CreateCharacterBody,
  FindCharacterBody,
  FindCharacterResult,
  UpdateCharacterBody,
  UpdateCharacterResult,
} from "./characters.ts";
import { ContentSource, UnlockContentSourceBody } from "./content.ts";
import { DeleteContentBody } from "./content/delete_content.ts";
import {
  CONTENT_TYPE_NAMES,
  type ContentTypeContract,
  type ContentTypeName,
  contentTypes,
} from "./content_types.ts";
import {
  ContentUpdate,
  CreateContentUpdateBody,
  FindContentUpdateBody,
  UpdateContentUpdateBody,
} from "./content_updates.ts";
import { OpenAiRequestBody, OpenAiRequestResult } from "./ai.ts";
import { CLIENT_ERROR_MAX_BODY_BYTES, ClientErrorReport } from "./diagnostics.ts";
import {
  CreateEncounterBody,
  Encounter,
  ENCOUNTER_REQUIRED_FIELDS,
  FindEncounterBody,
} from "./encounters.ts";
import {
  ContentSourceStats,
  ContentVersion,
  GetContentSourceStatsBody,
  GetContentVersionsBody,
} from "./freshness.ts";
import {
  GmAddToGroupBody,
  GmGroupEmptyBody,
  GmGroupMember,
  GmRemoveFromGroupBody,
} from "./gm_groups.ts";
import { SearchDataBody, SearchDataResult } from "./search.ts";
import {
  PopulateCollectionBody,
  PopulatedCollection,
  QueryCollectionBody,
  SimilarityMatch,
} from "./similarity.ts";
import { MAX_UPLOAD_BODY_BYTES, UploadedFile, UploadPublicFileBody } from "./uploads.ts";
import {
  DeletedUser,
  DeleteUserBody,
  GetUserBody,
  OwnProfile,
  PublicProfile,
  UpdateUserBody,
} from "./users.ts";

/** The credentials an endpoint accepts. `none` admits callers without any. */
export type AuthKind = "jwt" | "api_key" | "service" | "none";

/** The areas of the API, in the order the OpenAPI document lists them: each endpoint's tag. */
export const API_AREAS = {
  content: "Reference content and homebrew: content sources and the records in them",
  characters: "Characters, and API clients' access to them (the consent flow)",
  campaigns: "Campaigns, their join keys and members, and encounters",
  search: "Full-text, filtered and similarity search over content",
  moderation: "Proposed changes to content (community errata) and their moderation",
  accounts: "Profiles, API clients and game-master groups",
  uploads: "Images stored for portraits and backgrounds",
  ai: "Text generation for the game master's tools",
  diagnostics: "Reports from the web application",
} as const;

/** An area of the API (an OpenAPI tag). */
export type ApiArea = keyof typeof API_AREAS;

/** One endpoint as callers see it. */
export interface EndpointContract<
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** One-line description for the OpenAPI document. */
  summary: string;
  /** The area of the API it belongs to: its tag in the OpenAPI document. */
  area: ApiArea;
  /** Accepted credentials. */
  auth: readonly AuthKind[];
  /** The request body schema; its output is what the handler sees. */
  body: B;
  /** The success `data` schema; outgoing data is validated against it. */
  result: R;
  /** Body size cap in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Keep the per-IP budget in this process only (no shared store on this path). */
  ingress?: "shared" | "in_process";
  /** `false`: the endpoint touches no database (so it never answers 503). */
  database?: false;
  /** API-key calls target one character and need a grant for it (else 403). */
  perCharacter?: true;
  /**
   * A create-or-update body: without `id` (or with `id` null, 0 or -1) it inserts, and these are
   * the fields an insert needs; with a row id it changes only the fields given.
   */
  createRequires?: readonly string[];
  /** Rules across fields (or about the caller) that the body schema cannot state, in words. */
  rules?: readonly string[];
  /** A failing upstream service is answered with a JSend `error` and HTTP 200. */
  upstream?: true;
}

/** Body cap of endpoints that declare none. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const userOrKey = ["api_key", "jwt"] as const;

/** What an API key may change in a character (the database refuses anything else with 403). */
const API_KEY_CHARACTER_WRITES = [
  "With an API key only `level`, `experience`, `hp_current`, `hp_temp`, `hero_points`, " +
  "`stamina_current`, `resolve_current` and `inventory` may change; any other change is refused " +
  "with 403.",
] as const;

function article(label: string): string {
  return /^[aeiou]/.test(label) ? `an ${label}` : `a ${label}`;
}

type Types = typeof contentTypes;

type ContentEndpoints =
  & {
    [T in ContentTypeName as `find-${T}`]: {
      summary: string;
      area: "content";
      auth: typeof userOrKey;
      body: Types[T]["find"];
      result: Types[T]["found"];
    };
  }
  & {
    [T in ContentTypeName as `create-${T}`]: {
      summary: string;
      area: "content";
      auth: typeof userOrKey;
      createRequires: readonly string[];
      rules?: readonly string[];
      body: Types[T]["save"];
      result: Types[T]["resource"];
    };
  };

/** `find-<type>` and `create-<type>` of every content type in the registry. */
function contentEndpoints(): ContentEndpoints {
  const entries: [string, EndpointContract][] = [];
  for (const name of CONTENT_TYPE_NAMES) {
    const type: ContentTypeContract = contentTypes[name];
    entries.push([`find-${name}`, {
      summary: `Finds ${type.plural} the caller may read`,
      area: "content",
      auth: userOrKey,
      body: type.find,
      result: type.found,
    }]);
    const insertNote = "insertId" in type ? ` (${type.insertId} inserts)` : "";
    entries.push([`create-${name}`, {
      summary: `Creates ${article(type.label)}, or updates the one named by id${insertNote}`,
      area: "content",
      auth: userOrKey,
      createRequires: type.createRequires,
      ...(type.saveRules ? { rules: type.saveRules } : {}),
      body: type.save,
      result: type.resource,
    }]);
  }
  // The loop fills exactly the keys ContentEndpoints names, one pair per registry entry.
  return Object.fromEntries(entries) as unknown as ContentEndpoints;
}

/** Every endpoint by function name. */
export const contract = {
  ...contentEndpoints(),
  "create-api-client": {
    summary: "Creates an API client for the signed-in user and returns its key, shown this once",
    area: "accounts",
    auth: ["jwt"],
    body: CreateApiClientBody,
    result: CreatedApiClient,
  },
  "create-campaign": {
    summary:
      "Creates a campaign (supporter tier 1 or higher), or with id updates one the caller owns",
    area: "campaigns",
    auth: userOrKey,
    createRequires: ["name"],
    body: CreateCampaignBody,
    result: Campaign,
  },
  "create-character": {
    summary: "Creates a character, or with id updates the given fields of one the caller may write",
    area: "characters",
    auth: userOrKey,
    perCharacter: true,
    // Every field has a default: a new character needs none.
    createRequires: [],
    rules: [
      "An API key may update a character it holds a grant for, but not create one (403).",
      ...API_KEY_CHARACTER_WRITES,
    ],
    body: CreateCharacterBody,
    result: Character,
  },
  "create-content-update": {
    summary: "Proposes a change to content; moderators approve or reject it through the bot",
    area: "moderation",
    auth: userOrKey,
    rules: [
      "`data` holds the fields the proposal sets, as create-<type> takes them: a CREATE needs the " +
      "fields a new record of that type needs, an UPDATE at least one field; UPDATE and DELETE " +
      "name the record in `ref_id`, which must be a record of that type in `content_source_id`.",
      "A content source (`type` content-source) can only be updated, with `ref_id` equal to " +
      "`content_source_id`.",
      "A whole fetched record may be sent as `data`: its `created_at`, `updated_at` and " +
      "`user_id`, an `id` that is `ref_id` (or -1, 0 or null) and a `content_source_id` that is " +
      "the proposal's are dropped; `null` for a field that cannot be null is read as not given.",
    ],
    body: CreateContentUpdateBody,
    result: ContentUpdate,
  },
  "create-encounter": {
    summary:
      "Creates an encounter (supporter tier 1 or higher), or with id updates one the caller owns",
    area: "campaigns",
    auth: userOrKey,
    createRequires: ENCOUNTER_REQUIRED_FIELDS,
    body: CreateEncounterBody,
    result: Encounter,
  },
  "delete-api-client": {
    summary: "Revokes one of the signed-in user's API clients; its key stops working at once",
    area: "accounts",
    auth: ["jwt"],
    body: DeleteApiClientBody,
    result: z.literal(true),
  },
  "delete-content": {
    summary:
      "Deletes one record of the given type; only its owner (for content, its source's owner) or an admin may",
    area: "content",
    auth: userOrKey,
    body: DeleteContentBody,
    result: z.literal(true),
  },
  "delete-user": {
    summary:
      "Deletes the caller's account and everything it owns; refused while it owns content sources",
    area: "accounts",
    auth: ["jwt"],
    body: DeleteUserBody,
    result: DeletedUser,
  },
  "find-api-client": {
    summary: "Lists the signed-in user's API clients, without keys",
    area: "accounts",
    auth: ["jwt"],
    body: FindApiClientBody,
    result: z.array(ApiClient),
  },
  "find-campaign": {
    summary: "Finds campaigns by id, owner or join key; a join-key lookup lets the caller join",
    area: "campaigns",
    auth: ["api_key", "jwt", "none"],
    body: FindCampaignBody,
    result: z.array(Campaign),
  },
  "find-character": {
    summary: "Finds characters: one by id (or null), the caller's own, or those of a campaign",
    area: "characters",
    auth: userOrKey,
    perCharacter: true,
    rules: ["With an API key, `id` is one integer: a list of ids is refused."],
    body: FindCharacterBody,
    result: FindCharacterResult,
  },
  "find-character-access": {
    summary: "Lists the API clients authorized on one of the caller's characters",
    area: "characters",
    auth: ["jwt"],
    body: FindCharacterAccessBody,
    result: z.array(AuthorizedClient),
  },
  "find-content-update": {
    summary: "Finds content update proposals, sorted by id",
    area: "moderation",
    auth: userOrKey,
    body: FindContentUpdateBody,
    result: z.union([ContentUpdate, z.array(ContentUpdate)]).nullable(),
  },
  "find-encounter": {
    summary: "Finds the caller's own encounters by id or campaign",
    area: "campaigns",
    auth: userOrKey,
    body: FindEncounterBody,
    result: z.array(Encounter),
  },
  "get-api-client-info": {
    summary: "What a consent screen shows about an API client: its name and its owner's name",
    area: "characters",
    auth: ["jwt"],
    body: GetApiClientInfoBody,
    result: ApiClientInfo,
  },
  "get-content-source-stats": {
    summary: "Returns a visible content source and how many users subscribe to it",
    area: "content",
    auth: ["jwt", "api_key"],
    body: GetContentSourceStatsBody,
    result: ContentSourceStats,
  },
  "get-content-versions": {
    summary: "Returns the change token (updated_at) of each visible content source among the ids",
    area: "content",
    auth: ["jwt", "api_key"],
    body: GetContentVersionsBody,
    result: z.array(ContentVersion),
  },
  "get-user": {
    summary: "Reads the caller's own profile, or another user's public profile by id or _id",
    area: "accounts",
    auth: ["jwt"],
    body: GetUserBody,
    result: z.union([OwnProfile, PublicProfile]),
  },
  "gm-add-to-group": {
    summary:
      "Joins a GAME-MASTER supporter's group with its access code (replacing any earlier group)",
    area: "accounts",
    auth: ["jwt"],
    body: GmAddToGroupBody,
    result: z.literal("Added to group"),
  },
  "gm-regenerate-code": {
    summary: "Gives the caller's GM group a new access code; members stay",
    area: "accounts",
    auth: ["jwt"],
    body: GmGroupEmptyBody,
    result: z.literal("Code regenerated"),
  },
  "gm-remove-from-group": {
    summary: "Removes a member from the caller's GM group, or the caller from their own group",
    area: "accounts",
    auth: ["jwt"],
    body: GmRemoveFromGroupBody,
    result: z.literal("Removed from group"),
  },
  "gm-users-in-group": {
    summary:
      "Lists the members of the caller's GM group (empty unless the caller is a GAME-MASTER)",
    area: "accounts",
    auth: ["jwt"],
    body: GmGroupEmptyBody,
    result: z.array(GmGroupMember),
  },
  "grant-character-access": {
    summary: "The character's owner lets an API client read and write that one character",
    area: "characters",
    auth: ["jwt"],
    body: GrantCharacterAccessBody,
    result: CharacterGrant,
  },
  "open-ai-request": {
    summary:
      "Generates text with the configured chat-completions provider (supporter tier 1, 60 an hour per user)",
    area: "ai",
    auth: ["jwt"],
    upstream: true,
    body: OpenAiRequestBody,
    result: OpenAiRequestResult,
  },
  "remove-from-campaign": {
    summary: "The campaign's owner removes a character (and its player) from the campaign",
    area: "campaigns",
    auth: userOrKey,
    body: RemoveFromCampaignBody,
    result: z.literal(true),
  },
  "report-client-error": {
    summary: "Accepts a tightly bounded client-failure report without authentication",
    area: "diagnostics",
    auth: ["none"],
    // No database and no shared store on this path: the per-IP budget lives in this process.
    database: false,
    ingress: "in_process",
    maxBodyBytes: CLIENT_ERROR_MAX_BODY_BYTES,
    body: ClientErrorReport,
    result: z.literal(true),
  },
  "reset-campaign-key": {
    summary: "Gives a campaign a new join key; the old key and open join grants stop working",
    area: "campaigns",
    auth: userOrKey,
    body: ResetCampaignKeyBody,
    result: ResetCampaignKeyResult,
  },
  "revoke-character-access": {
    summary:
      "Withdraws an API client's access to one of the caller's characters, effective at once",
    area: "characters",
    auth: ["jwt"],
    body: RevokeCharacterAccessBody,
    result: z.literal(true),
  },
  "search-data": {
    summary:
      "Searches all content: fuzzy full-text search (`text`) or exact filters on one content type (`is_advanced`)",
    area: "search",
    auth: userOrKey,
    rules: [
      "`level_min` must not be greater than `level_max`, nor `rank_min` greater than `rank_max`; " +
      "`level` stands for whichever of `level_min` and `level_max` is not given.",
    ],
    body: SearchDataBody,
    result: SearchDataResult,
  },
  "unlock-content-source": {
    summary: "Enters a key-locked content source's access key; the source is readable from then on",
    area: "content",
    auth: userOrKey,
    body: UnlockContentSourceBody,
    result: ContentSource,
  },
  "update-character": {
    summary:
      "Updates the given fields of a character, optionally only if unchanged since a time; answers [row], or __conflict / __forbidden as data",
    area: "characters",
    auth: userOrKey,
    perCharacter: true,
    rules: API_KEY_CHARACTER_WRITES,
    body: UpdateCharacterBody,
    result: UpdateCharacterResult,
  },
  "update-content-update": {
    summary: "The moderation bot approves, rejects or votes on a proposal (service secret only)",
    area: "moderation",
    auth: ["service"],
    body: UpdateContentUpdateBody,
    result: z.literal(true),
  },
  "update-user": {
    summary: "Updates the caller's editable profile fields; only the fields given change",
    area: "accounts",
    auth: ["jwt"],
    rules: [
      "`subscribed_content_sources` lists each `source_id` at most once.",
      "`site_theme` is at most 4000 characters long as JSON.",
    ],
    body: UpdateUserBody,
    result: z.literal(true),
  },
  "upload-public-file": {
    summary: "Stores a portrait or background image (supporter tier 1+) and returns its public URL",
    area: "uploads",
    auth: ["jwt", "api_key"],
    rules: [
      "`data` decodes to at most 2 MiB (2,097,152 bytes), and starts with the signature of the " +
      "format `type` names (the pattern of each variant says it).",
    ],
    // An oversize file is refused with 413 while the body is read, before anything is decoded.
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    body: UploadPublicFileBody,
    result: UploadedFile,
  },
  "vector-db-populate-collection": {
    summary: "Makes records searchable by similarity and reports how many of the ids are indexed",
    area: "search",
    auth: ["jwt", "api_key"],
    body: PopulateCollectionBody,
    result: PopulatedCollection,
  },
  "vector-db-query-collection": {
    summary: "Finds the readable records nearest to a query by name or by content, nearest first",
    area: "search",
    auth: ["jwt", "api_key"],
    body: QueryCollectionBody,
    result: z.array(SimilarityMatch),
  },
} as const satisfies Record<string, EndpointContract>;

/** The name of an endpoint (its function folder), such as `find-spell`. */
export type EndpointName = keyof typeof contract;

/** The contract entry of an endpoint. */
export type ContractOf<N extends EndpointName> = (typeof contract)[N];
