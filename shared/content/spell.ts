import { z } from "zod";
import { Id, JsonObject } from "../common.ts";
import { Availability, Rarity } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  ExactNameFilter,
  findBase,
  IdList,
  MetaData,
  Name,
  ShortText,
  StringList,
  Text,
  traitsFilter,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { SpellHit } from "../search_rows.ts";

const spell = contentSchemas("Spell", {
  name: Name,
  rank: z.int().min(0).max(10),
  traditions: StringList,
  rarity: Rarity,
  description: Text,
  content_source_id: Id,
  version: ShortText.nullable(),
  availability: Availability,
  cast: ShortText.nullable(),
  defense: ShortText.nullable(),
  cost: ShortText.nullable(),
  trigger: ShortText.nullable(),
  requirements: ShortText.nullable(),
  range: ShortText.nullable(),
  area: ShortText.nullable(),
  targets: ShortText.nullable(),
  duration: ShortText.nullable(),
  traits: IdList,
  heightened: JsonObject.nullable(),
  deprecated: Deprecated,
  meta_data: MetaData,
});

/** A spell; `rank` is 0 to 10. */
export const Spell = spell.Resource;
export type Spell = z.infer<typeof Spell>;

/** Body of create-spell: `id` omitted or -1 inserts. */
export const SaveSpellBody = spell.Save;

/** Result of find-spell. */
export const FindSpellResult = spell.Result;

/** Body of find-spell. */
export const FindSpellBody = z.strictObject({
  ...findBase,
  name: ExactNameFilter.optional(),
  ...traitsFilter,
});

/** The spell content type: its registry entry. */
export const spellType = contentType({
  name: "spell",
  label: "spell",
  plural: "spells",
  resource: Spell,
  save: SaveSpellBody,
  find: FindSpellBody,
  found: FindSpellResult,
  searchBucket: "spells",
  searchRow: SpellHit,
  insertId: -1,
  createRequires: ["name", "rank", "content_source_id"],
});
