import { z } from "zod";

// Every enumeration of the interface except the names of the content types (ContentRecordType,
// ContentType), which are in shared/content_type_names.ts. The Postgres enum types of
// the content baseline (20261122000300_content.sql) carry exactly these values in this order; a
// test compares them.

/** How rare a piece of content is. */
export const Rarity = z.enum(["COMMON", "UNCOMMON", "RARE", "UNIQUE"]).meta({ id: "Rarity" });
export type Rarity = z.infer<typeof Rarity>;

/** Whether content is generally available or needs a reason to be accessed. */
export const Availability = z.enum(["STANDARD", "LIMITED", "RESTRICTED"]).meta({
  id: "Availability",
});
export type Availability = z.infer<typeof Availability>;

/** The kind of an item. */
export const ItemGroup = z.enum([
  "GENERAL",
  "WEAPON",
  "ARMOR",
  "SHIELD",
  "RUNE",
  "UPGRADE",
  "MATERIAL",
]).meta({ id: "ItemGroup" });
export type ItemGroup = z.infer<typeof ItemGroup>;

/** The size an item is made for. */
export const ItemSize = z.enum(["TINY", "SMALL", "MEDIUM", "LARGE", "HUGE", "GARGANTUAN"]).meta({
  id: "ItemSize",
});
export type ItemSize = z.infer<typeof ItemSize>;

/** The kind of an ability block. */
export const AbilityBlockType = z.enum([
  "action",
  "feat",
  "physical-feature",
  "sense",
  "class-feature",
  "heritage",
  "mode",
]).meta({ id: "AbilityBlockType" });
export type AbilityBlockType = z.infer<typeof AbilityBlockType>;

/** The action cost of an ability block (the column itself may be null: no cost). */
export const AbilityBlockActions = z.enum([
  "ONE-ACTION",
  "TWO-ACTIONS",
  "THREE-ACTIONS",
  "REACTION",
  "FREE-ACTION",
  "ONE-TO-TWO-ACTIONS",
  "ONE-TO-THREE-ACTIONS",
  "TWO-TO-THREE-ACTIONS",
]).meta({ id: "AbilityBlockActions" });
export type AbilityBlockActions = z.infer<typeof AbilityBlockActions>;

/** The spell-kind filter of search-data. */
export const SpellKind = z.enum(["FOCUS", "RITUAL", "NORMAL"]).meta({ id: "SpellKind" });
export type SpellKind = z.infer<typeof SpellKind>;

/** Kinds of a class archetype's feature adjustment (the interface names ADD; others are kept open). */
export const FeatureAdjustmentType = z.enum(["ADD", "REPLACE", "REMOVE"]).meta({
  id: "FeatureAdjustmentType",
});
export type FeatureAdjustmentType = z.infer<typeof FeatureAdjustmentType>;

/** A creature's stat adjustment. */
export const CreatureAdjustment = z.enum(["ELITE", "WEAK"]).meta({ id: "CreatureAdjustment" });
export type CreatureAdjustment = z.infer<typeof CreatureAdjustment>;

/**
 * The shelves the web client lists books under (a content source's `group`); its book pickers
 * show official sources only under these. Homebrew sources may leave `group` empty.
 */
export const ContentSourceGroup = z.enum([
  "pathfinder-core",
  "starfinder-core",
  "adventure-path",
  "standalone-adventure",
  "lost-omens",
  "legacy",
  "playtest",
  "misc",
]).meta({ id: "ContentSourceGroup" });
export type ContentSourceGroup = z.infer<typeof ContentSourceGroup>;
