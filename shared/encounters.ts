import { z } from "zod";
import { Id, IdFilter, JsonObject, SaveId, Timestamp, UserId } from "./common.ts";

// An encounter (a GM's combat tracker) and the bodies of create-encounter and find-encounter.

// `combatants` and `meta_data` are the client's own objects: the service relies on nothing inside
// them, so it checks only that they are objects (and `combatants.list` a list of objects) and
// takes whatever else the client writes there, nulls included.

/** One side of a fight, as the web client keeps it; its keys are the client's business. */
export const Combatant = JsonObject.meta({
  id: "Combatant",
  description: "The web client writes `_id` (string), `type` (CREATURE or CHARACTER), `ally`, " +
    "`initiative`, and `creature` (an embedded creature) or `character` (a character id), with " +
    "`data` (its live state)",
});
export type Combatant = z.infer<typeof Combatant>;

/** The combatants of an encounter. */
export const Combatants = z.looseObject({ list: z.array(Combatant).max(1_000) }).meta({
  id: "Combatants",
});

/** An encounter's notes for the GM; its keys are the client's business. */
export const EncounterMetaData = JsonObject.meta({
  id: "EncounterMetaData",
  description: "The web client writes `description`, and `party_level` (the mean of the " +
    "allies' levels, null without allies) and `party_size`",
});

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

/**
 * The fields a new encounter must have; the database gives the others their defaults (icon
 * `combat`, color `#359fdf`, combatants `{list: []}`, meta_data `{}`).
 */
export const ENCOUNTER_REQUIRED_FIELDS = [
  "name",
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
 * Body of create-encounter: without `id` (or with -1) a new encounter, which needs only `name` (the
 * other fields have defaults); with `id` a partial update of one the caller owns.
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
