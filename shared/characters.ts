import { z } from "zod";
import {
  Id,
  IdFilter,
  InstantInput,
  JsonObject,
  optionalInput,
  SaveId,
  Timestamp,
  UserId,
} from "./common.ts";

// A character and the bodies of create-character, find-character and update-character. The
// free-form objects are the client's business; only their top-level kind is checked here.

/** A 32-bit integer column. */
const Int = z.int32();

/** A character's name: trimmed, typographic apostrophes made plain. */
const CharacterName = z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'"));

/** A character's inventory: item list, coins, and anything else the client keeps there. */
export const Inventory = z.looseObject({
  items: z.array(JsonObject).optional(),
  coins: JsonObject.optional(),
  eidolon_weapon_id: z.string().nullable().optional(),
}).meta({ id: "Inventory" });
export type Inventory = z.infer<typeof Inventory>;

/** The content sources a character or campaign draws on. */
export const EnabledContentSources = z.looseObject({
  enabled: z.array(Id).max(1_000).optional(),
}).meta({ id: "EnabledContentSources" });
export type EnabledContentSources = z.infer<typeof EnabledContentSources>;

/** The fields a caller may write, shared by create-character and update-character. */
const writable = {
  name: CharacterName,
  level: z.int().min(0).max(100),
  campaign_id: Id.nullable(),
  experience: Int,
  hero_points: Int,
  hp_current: Int,
  hp_temp: Int,
  stamina_current: Int,
  resolve_current: Int,
  inventory: Inventory,
  details: JsonObject,
  notes: JsonObject,
  roll_history: JsonObject,
  // null until the builder fills it: the client builds its own empty structure from null.
  spells: JsonObject.nullable(),
  operation_data: JsonObject,
  meta_data: JsonObject,
  options: JsonObject,
  variants: JsonObject,
  companions: JsonObject,
  custom_operations: z.array(JsonObject).max(5_000),
  content_sources: EnabledContentSources,
};

/** The columns of a character a caller may write, in storage order. */
export const CHARACTER_WRITABLE_FIELDS = Object.keys(writable) as (keyof typeof writable)[];

/**
 * The columns of a character an API key may change: its stats and its inventory, as the consent
 * screen says. The database refuses any other change under an API key with 403
 * (`private.limit_api_client_character_writes`, tied to this list by
 * tests/api_key_character_writes_test.ts).
 */
export const API_KEY_WRITABLE_FIELDS = [
  "level",
  "experience",
  "hp_current",
  "hp_temp",
  "hero_points",
  "stamina_current",
  "resolve_current",
  "inventory",
] as const satisfies readonly (keyof typeof writable)[];

/** A character as stored. */
export const Character = z.object({
  id: Id,
  created_at: Timestamp,
  updated_at: Timestamp,
  user_id: UserId,
  ...writable,
}).meta({ id: "Character" });
export type Character = z.infer<typeof Character>;

/**
 * The writable fields of a character, every one optional (a partial write); `null` for a field
 * that cannot be null (an exported character's `notes` or `roll_history`) means "not given".
 */
export const CharacterPatch = z.object(
  Object.fromEntries(
    Object.entries(writable).map(([key, schema]) => [key, optionalInput(schema)]),
  ) as { [K in keyof typeof writable]: z.ZodOptional<(typeof writable)[K]> },
);
export type CharacterPatch = z.infer<typeof CharacterPatch>;

/**
 * Body of create-character: a new character (fields left out get the web client's defaults: level
 * 1, 15 gp, the official published content sources, `spells` null, `options` with the dice roller
 * and prerequisite detection on), or with `id` a partial update of an existing one (`id` -1 or 0
 * also means new). Other keys, such as `created_at` sent back from a fetched character, are
 * ignored.
 */
export const CreateCharacterBody = CharacterPatch.extend({ id: SaveId }).meta({
  id: "CreateCharacterBody",
});
export type CreateCharacterBody = z.infer<typeof CreateCharacterBody>;

/** Body of find-character: every filter optional and ANDed; an unknown key is refused. */
export const FindCharacterBody = z.strictObject({
  id: IdFilter.optional(),
  user_id: UserId.optional(),
  campaign_id: Id.optional(),
}).meta({ id: "FindCharacterBody" });
export type FindCharacterBody = z.infer<typeof FindCharacterBody>;

/** What find-character returns: one character or null for a single id, else a list. */
export const FindCharacterResult = z.union([Character, z.array(Character)]).nullable();

/**
 * Body of update-character: `id`, an optional concurrency token (the `updated_at` the caller last
 * saw), and any writable fields. Other keys are ignored.
 */
export const UpdateCharacterBody = CharacterPatch.extend({
  id: Id,
  expected_updated_at: InstantInput.optional(),
}).meta({ id: "UpdateCharacterBody" });
export type UpdateCharacterBody = z.infer<typeof UpdateCharacterBody>;

/**
 * What update-character answers, in the shapes the web client reads: the saved row in a one-element
 * list; with a stale `expected_updated_at`, `__conflict` and the current row (nothing written);
 * for a character the caller may read but not write, or cannot see, `__forbidden` and the reason.
 */
export const UpdateCharacterResult = z.union([
  z.array(Character).length(1),
  z.object({ __conflict: z.literal(true), character: Character }),
  z.object({ __forbidden: z.literal(true), reason: z.enum(["WRITE_DENIED", "NOT_VISIBLE"]) }),
]).meta({ id: "UpdateCharacterResult" });
export type UpdateCharacterResult = z.infer<typeof UpdateCharacterResult>;
