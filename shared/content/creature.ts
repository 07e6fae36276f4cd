import { z } from "zod";
import { Id, JsonObject } from "../common.ts";
import { CreatureAdjustment, Rarity } from "../enums.ts";
import {
  contentSchemas,
  findBase,
  IdList,
  Int,
  MetaData,
  Name,
  Operations,
  ShortText,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { StatBlockHit } from "../search_rows.ts";

/** A creature's presentation details. */
export const CreatureDetails = z.looseObject({
  description: z.string().optional(),
  image_url: z.string().optional(),
  background_image_url: z.string().optional(),
  conditions: z.array(z.unknown()).optional(),
  adjustment: CreatureAdjustment.nullable().optional(),
}).meta({ id: "CreatureDetails" });

// Creatures and hazards share one record shape; only the `type` constant differs.
function statBlockFields<const T extends string>(type: T) {
  return {
    name: Name,
    level: Int,
    rarity: Rarity,
    content_source_id: Id,
    version: ShortText.nullable(),
    deprecated: z.boolean(),
    type: z.literal(type),
    details: CreatureDetails,
    operations: Operations.nullable(),
    abilities_base: z.array(JsonObject).max(1_000).nullable(),
    abilities_added: IdList,
    inventory: JsonObject.nullable(),
    spells: JsonObject.nullable(),
    notes: JsonObject.nullable(),
    roll_history: JsonObject.nullable(),
    operation_data: JsonObject.nullable(),
    meta_data: MetaData,
    experience: Int,
    hp_current: Int,
    hp_temp: Int,
    stamina_current: Int,
    resolve_current: Int,
  };
}

/** A creature stat block. */
export const { Resource: Creature, Save: SaveCreatureBody, Result: FindCreatureResult } =
  contentSchemas("Creature", statBlockFields("creature"));
export type Creature = z.infer<typeof Creature>;

/** Body of find-creature. */
export const FindCreatureBody = z.strictObject(findBase);

/** A hazard: the creature record with `type` "hazard". */
export const { Resource: Hazard, Save: SaveHazardBody, Result: FindHazardResult } = contentSchemas(
  "Hazard",
  statBlockFields("hazard"),
);
export type Hazard = z.infer<typeof Hazard>;

/** Body of find-hazard. */
export const FindHazardBody = z.strictObject(findBase);

/** The creature content type: its registry entry. */
export const creatureType = contentType({
  name: "creature",
  label: "creature",
  plural: "creatures",
  resource: Creature,
  save: SaveCreatureBody,
  find: FindCreatureBody,
  found: FindCreatureResult,
  searchBucket: "creatures",
  searchRow: StatBlockHit,
  createRequires: ["name", "content_source_id"],
});

/** The hazard content type: its registry entry. */
export const hazardType = contentType({
  name: "hazard",
  label: "hazard",
  plural: "hazards",
  resource: Hazard,
  save: SaveHazardBody,
  find: FindHazardBody,
  found: FindHazardResult,
  searchBucket: "hazards",
  searchRow: StatBlockHit,
  createRequires: ["name", "content_source_id"],
});
