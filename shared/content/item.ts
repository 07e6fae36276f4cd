import { z } from "zod";
import { Availability, ItemGroup, ItemSize } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  describedFields,
  findBase,
  IdList,
  Int,
  MetaData,
  Operations,
  ShortText,
  Text,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ItemHit } from "../search_rows.ts";

const Coins = Int.min(0, "a price cannot be negative");

/** An item's price in coins. */
export const Price = z.looseObject({
  cp: Coins.optional(),
  sp: Coins.optional(),
  gp: Coins.optional(),
  pp: Coins.optional(),
}).meta({ id: "Price" });

/** An item. */
export const { Resource: Item, Save: SaveItemBody, Result: FindItemResult } = contentSchemas(
  "Item",
  {
    ...describedFields,
    level: Int,
    group: ItemGroup,
    size: ItemSize,
    price: Price.nullable(),
    bulk: ShortText.nullable(),
    availability: Availability,
    traits: IdList,
    hands: ShortText.nullable(),
    craft_requirements: Text.nullable(),
    usage: ShortText.nullable(),
    deprecated: Deprecated,
    meta_data: MetaData.extend({
      display_traits: z.array(z.string()).optional(),
      inventory_label: z.string().optional(),
      spellheart_casting: z.looseObject({ attack: Int.optional(), dc: Int.optional() }).optional(),
    }),
    operations: Operations.nullable(),
  },
);
export type Item = z.infer<typeof Item>;

/** Body of find-item (no `traits` filter, as the reference has it). */
export const FindItemBody = z.strictObject(findBase);

/** The item content type: its registry entry. */
export const itemType = contentType({
  name: "item",
  label: "item",
  plural: "items",
  resource: Item,
  save: SaveItemBody,
  find: FindItemBody,
  found: FindItemResult,
  searchBucket: "items",
  searchRow: ItemHit,
  createRequires: ["name", "content_source_id"],
});
