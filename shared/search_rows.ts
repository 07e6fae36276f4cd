import { z } from "zod";
import { Id } from "./common.ts";
import { AbilityBlockType, ItemGroup } from "./enums.ts";

// Simple mode's trimmed rows (section 9 of the endpoint notes; creatures and hazards also carry
// their `type`, as the interface's search summary has it).

/** An ability block as simple mode returns it. */
export const AbilityBlockHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  level: z.int().nullable(),
  type: AbilityBlockType,
  traits: z.array(Id),
  content_source_id: Id,
}).meta({ id: "AbilityBlockHit" });

/** An item as simple mode returns it. */
export const ItemHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  level: z.int(),
  traits: z.array(Id),
  group: ItemGroup,
  hands: z.string().nullable(),
  content_source_id: Id,
}).meta({ id: "ItemHit" });

/** A spell as simple mode returns it. */
export const SpellHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  rank: z.int(),
  traits: z.array(Id),
  traditions: z.array(z.string()),
  content_source_id: Id,
}).meta({ id: "SpellHit" });

/** A creature or hazard as simple mode returns it. */
export const StatBlockHit = z.object({
  id: Id,
  name: z.string(),
  level: z.int(),
  type: z.enum(["creature", "hazard"]),
  content_source_id: Id,
}).meta({ id: "StatBlockHit" });

/** Any other content as simple mode returns it. */
export const ContentHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  content_source_id: Id,
}).meta({ id: "ContentHit" });
