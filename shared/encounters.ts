import { z } from "zod";
import { Id, IdFilter, JsonObject, SaveId, Timestamp, UserId } from "./common.ts";

// An encounter (a GM's combat tracker) and the bodies of create-encounter and find-encounter.

/** One side of a fight: an embedded creature or a character id, with its live state. */
export const Combatant = z.looseObject({
  _id: z.string().max(100),
  type: z.enum(["CREATURE", "CHARACTER"]),
  ally: z.boolean(),
  initiative: z.number().optional(),
  creature: JsonObject.optional(),
  character: Id.optional(),
  data: JsonObject.optional(),
}).meta({ id: "Combatant" });
export type Combatant = z.infer<typeof Combatant>;

/** The combatants of an encounter. */
export const Combatants = z.looseObject({ list: z.array(Combatant).max(1_000) }).meta({
  id: "Combatants",
});

/** An encounter's notes for the GM. */
export const EncounterMetaData = z.looseObject({
  description: z.string().optional(),
  /** The mean of the players' levels: may be fractional. */
  party_level: z.number().min(-1_000).max(1_000).optional(),
  party_size: z.int32().optional(),
}).meta({ id: "EncounterMetaData" });

/** The fields an encounter's owner writes. */
const writable = {
  name: z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'")),
  icon: z.string().trim().max(200),
  color: z.string().trim().max(100),
  campaign_id: Id.nullable(),
  combatants: Combatants,
  meta_data: EncounterMetaData,
};

/** The columns of an encounter its owner may write. */
export const ENCOUNTER_WRITABLE_FIELDS = Object.keys(writable) as (keyof typeof writable)[];

/** The fields a new encounter must have. */
export const ENCOUNTER_REQUIRED_FIELDS = [
  "name",
  "icon",
  "color",
  "combatants",
  "meta_data",
] as const satisfies readonly (keyof typeof writable)[];

/** An encounter as stored. */
export const Encounter = z.object({
  id: Id,
  created_at: Timestamp,
  user_id: UserId,
  ...writable,
}).meta({ id: "Encounter" });
export type Encounter = z.infer<typeof Encounter>;

/**
 * Body of create-encounter: without `id` (or with -1) a new encounter, which needs `name`, `icon`,
 * `color`, `combatants` and `meta_data`; with `id` a partial update of one the caller owns.
 */
export const CreateEncounterBody = z.object(writable).partial().extend({ id: SaveId }).meta({
  id: "CreateEncounterBody",
});
export type CreateEncounterBody = z.infer<typeof CreateEncounterBody>;

/** Body of find-encounter: filters ANDed, unknown keys refused; only own encounters are found. */
export const FindEncounterBody = z.strictObject({
  id: IdFilter.optional(),
  user_id: UserId.optional(),
  campaign_id: Id.optional(),
}).meta({ id: "FindEncounterBody" });
export type FindEncounterBody = z.infer<typeof FindEncounterBody>;
