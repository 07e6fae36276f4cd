/**
 * The registry of content types, the part the contract needs: one entry per type with its
 * table, how messages name it, its schemas and its search bucket and row. The find and create
 * endpoints of every type (`shared/contract.ts`), the enums naming the types (below), search-data's
 * buckets, similarity and delete-content are derived from it; the server-only part (find filters,
 * computed columns) is in
 * `supabase/functions/_shared/content/tables.ts`.
 */
import { z } from "zod";
import * as content from "./content.ts";
import { AbilityBlockHit, ContentHit, ItemHit, SpellHit, StatBlockHit } from "./search_rows.ts";

/** What the contract knows of one content type. */
export interface ContentTypeContract<
  Resource extends z.ZodObject = z.ZodObject,
  Save extends z.ZodType = z.ZodType,
  Find extends z.ZodType = z.ZodType,
  Found extends z.ZodType = z.ZodType,
> {
  /** Table name in schema `public`. */
  table: string;
  /** How messages name one record: "spell", "class archetype". */
  label: string;
  /** How summaries name several: "spells", "ancestries". */
  plural: string;
  /** The resource schema; its keys are the returned columns, in order. */
  resource: Resource;
  /** Body of `create-<type>`. */
  save: Save;
  /** Body of `find-<type>`. */
  find: Find;
  /** Result of `find-<type>`: one record or null for one id, else a list. */
  found: Found;
  /** The search-data bucket of the type; null when search does not cover it. */
  searchBucket: string | null;
  /** The trimmed row search-data's simple mode returns in that bucket (ContentHit for most). */
  searchRow: z.ZodObject;
  /**
   * false: not a value of the interface's ContentType (search-data's `type`, content updates);
   * hazards are not.
   */
  interfaceType?: false;
  /** An id that also means "insert" on create (the reference's spell form sends -1). */
  insertId?: number;
  /**
   * The fields a new record must have (create-<type> without `id`): its table's columns that are
   * NOT NULL without a default, and the source it goes in. A test checks them against the database.
   */
  createRequires: readonly string[];
  /** Rules of create-<type> across fields, in words for the document. */
  saveRules?: readonly string[];
}

/** Every content type by the name the API gives it (`find-<name>`, `create-<name>`). */
export const contentTypes = {
  "ability-block": {
    table: "ability_block",
    label: "ability block",
    plural: "ability blocks",
    resource: content.AbilityBlock,
    save: content.SaveAbilityBlockBody,
    find: content.FindAbilityBlockBody,
    found: content.FindAbilityBlockResult,
    searchBucket: "ability_blocks",
    searchRow: AbilityBlockHit,
    createRequires: ["name", "type", "content_source_id"],
  },
  "ancestry": {
    table: "ancestry",
    label: "ancestry",
    plural: "ancestries",
    resource: content.Ancestry,
    save: content.SaveAncestryBody,
    find: content.FindAncestryBody,
    found: content.FindAncestryResult,
    searchBucket: "ancestries",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "archetype": {
    table: "archetype",
    label: "archetype",
    plural: "archetypes",
    resource: content.Archetype,
    save: content.SaveArchetypeBody,
    find: content.FindArchetypeBody,
    found: content.FindArchetypeResult,
    searchBucket: "archetypes",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
    saveRules: [
      "An archetype's linked trait is named `<name> Archetype` (at most 200 characters): a new " +
      "archetype without `trait_id`, or a renamed one whose trait is linked, has a name of at " +
      "most 190 characters.",
    ],
  },
  "background": {
    table: "background",
    label: "background",
    plural: "backgrounds",
    resource: content.Background,
    save: content.SaveBackgroundBody,
    find: content.FindBackgroundBody,
    found: content.FindBackgroundResult,
    searchBucket: "backgrounds",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "class": {
    table: "class",
    label: "class",
    plural: "classes",
    resource: content.Class,
    save: content.SaveClassBody,
    find: content.FindClassBody,
    found: content.FindClassResult,
    searchBucket: "classes",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "class-archetype": {
    table: "class_archetype",
    label: "class archetype",
    plural: "class archetypes",
    resource: content.ClassArchetype,
    save: content.SaveClassArchetypeBody,
    find: content.FindClassArchetypeBody,
    found: content.FindClassArchetypeResult,
    searchBucket: "class_archetypes",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "content-source": {
    table: "content_source",
    label: "content source",
    plural: "content sources",
    resource: content.ContentSource,
    save: content.SaveContentSourceBody,
    find: content.FindContentSourceBody,
    found: content.FindContentSourceResult,
    searchBucket: null,
    searchRow: ContentHit,
    createRequires: ["name"],
    saveRules: [
      "`foundry_id` is another name of `external_id`: send one, or the same value in both.",
      "With `require_key` true the source needs `keys.access_key` of at least 8 characters " +
      "(given now, or kept from before).",
    ],
  },
  "creature": {
    table: "creature",
    label: "creature",
    plural: "creatures",
    resource: content.Creature,
    save: content.SaveCreatureBody,
    find: content.FindCreatureBody,
    found: content.FindCreatureResult,
    searchBucket: "creatures",
    searchRow: StatBlockHit,
    createRequires: ["name", "content_source_id"],
  },
  "hazard": {
    table: "hazard",
    label: "hazard",
    plural: "hazards",
    resource: content.Hazard,
    save: content.SaveHazardBody,
    find: content.FindHazardBody,
    found: content.FindHazardResult,
    searchBucket: "hazards",
    searchRow: StatBlockHit,
    interfaceType: false,
    createRequires: ["name", "content_source_id"],
  },
  "item": {
    table: "item",
    label: "item",
    plural: "items",
    resource: content.Item,
    save: content.SaveItemBody,
    find: content.FindItemBody,
    found: content.FindItemResult,
    searchBucket: "items",
    searchRow: ItemHit,
    createRequires: ["name", "content_source_id"],
  },
  "language": {
    table: "language",
    label: "language",
    plural: "languages",
    resource: content.Language,
    save: content.SaveLanguageBody,
    find: content.FindLanguageBody,
    found: content.FindLanguageResult,
    searchBucket: "languages",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "spell": {
    table: "spell",
    label: "spell",
    plural: "spells",
    resource: content.Spell,
    save: content.SaveSpellBody,
    find: content.FindSpellBody,
    found: content.FindSpellResult,
    searchBucket: "spells",
    searchRow: SpellHit,
    insertId: -1,
    createRequires: ["name", "rank", "content_source_id"],
  },
  "trait": {
    table: "trait",
    label: "trait",
    plural: "traits",
    resource: content.Trait,
    save: content.SaveTraitBody,
    find: content.FindTraitBody,
    found: content.FindTraitResult,
    searchBucket: "traits",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
  "versatile-heritage": {
    table: "versatile_heritage",
    label: "versatile heritage",
    plural: "versatile heritages",
    resource: content.VersatileHeritage,
    save: content.SaveVersatileHeritageBody,
    find: content.FindVersatileHeritageBody,
    found: content.FindVersatileHeritageResult,
    searchBucket: "versatile_heritages",
    searchRow: ContentHit,
    createRequires: ["name", "content_source_id"],
  },
} as const satisfies Record<string, ContentTypeContract>;

/** A content type's name: `spell`, `class-archetype`, `content-source`. */
export type ContentTypeName = keyof typeof contentTypes;

/** Every content type name, in registry order. */
export const CONTENT_TYPE_NAMES = Object.keys(contentTypes) as ContentTypeName[];

/** Every kind of content record: one table each, named as the API names them. */
export type ContentRecordType = Exclude<ContentTypeName, "content-source">;
export const ContentRecordType = z.enum(
  CONTENT_TYPE_NAMES.filter((name) => name !== "content-source") as [
    ContentRecordType,
    ...ContentRecordType[],
  ],
).meta({ id: "ContentRecordType" });

/** Content types as search-data and the interface name them (hazards have no type filter). */
export type ContentType = {
  [N in ContentTypeName]: (typeof contentTypes)[N] extends { interfaceType: false } ? never : N;
}[ContentTypeName];
export const ContentType = z.enum(
  CONTENT_TYPE_NAMES.filter((name) =>
    (contentTypes[name] as ContentTypeContract).interfaceType !== false
  ) as [
    ContentType,
    ...ContentType[],
  ],
).meta({ id: "ContentType" });
