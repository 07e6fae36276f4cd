// The reference-content contract: every content type's resource, save body and find body.
export * from "./content/fields.ts";
export * from "./content/content_source.ts";
export * from "./content/trait.ts";
export * from "./content/item.ts";
export * from "./content/spell.ts";
export * from "./content/class.ts";
export * from "./content/class_archetype.ts";
export * from "./content/ability_block.ts";
export * from "./content/versatile_heritage.ts";
export * from "./content/language.ts";
export * from "./content/ancestry.ts";
export * from "./content/archetype.ts";
export * from "./content/background.ts";
export * from "./content/creature.ts";
