/**
 * The registry of content types, the part the contract needs: one entry per type with its
 * table, how messages name it, its schemas and its search bucket. The find and create
 * endpoints of every type (`shared/contract.ts`), search, similarity and delete-content are derived
 * from it; the server-only part (find filters, computed columns) is in
 * `supabase/functions/_shared/content/tables.ts`.
 */
import type { z } from "zod";
import * as content from "./content.ts";
import type { ContentRecordType } from "./enums.ts";
import type { SearchBucket } from "./search.ts";

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
  searchBucket: SearchBucket | null;
  /** An id that also means "insert" on create (the reference's spell form sends -1). */
  insertId?: number;
}

function define<
  R extends z.ZodObject,
  S extends z.ZodType,
  F extends z.ZodType,
  O extends z.ZodType,
>(
  entry: ContentTypeContract<R, S, F, O>,
): ContentTypeContract<R, S, F, O> {
  return entry;
}

/** Every content type by the name the API gives it (`find-<name>`, `create-<name>`). */
export const contentTypes = {
  "ability-block": define({
    table: "ability_block",
    label: "ability block",
    plural: "ability blocks",
    resource: content.AbilityBlock,
    save: content.SaveAbilityBlockBody,
    find: content.FindAbilityBlockBody,
    found: content.FindAbilityBlockResult,
    searchBucket: "ability_blocks",
  }),
  "ancestry": define({
    table: "ancestry",
    label: "ancestry",
    plural: "ancestries",
    resource: content.Ancestry,
    save: content.SaveAncestryBody,
    find: content.FindAncestryBody,
    found: content.FindAncestryResult,
    searchBucket: "ancestries",
  }),
  "archetype": define({
    table: "archetype",
    label: "archetype",
    plural: "archetypes",
    resource: content.Archetype,
    save: content.SaveArchetypeBody,
    find: content.FindArchetypeBody,
    found: content.FindArchetypeResult,
    searchBucket: "archetypes",
  }),
  "background": define({
    table: "background",
    label: "background",
    plural: "backgrounds",
    resource: content.Background,
    save: content.SaveBackgroundBody,
    find: content.FindBackgroundBody,
    found: content.FindBackgroundResult,
    searchBucket: "backgrounds",
  }),
  "class": define({
    table: "class",
    label: "class",
    plural: "classes",
    resource: content.Class,
    save: content.SaveClassBody,
    find: content.FindClassBody,
    found: content.FindClassResult,
    searchBucket: "classes",
  }),
  "class-archetype": define({
    table: "class_archetype",
    label: "class archetype",
    plural: "class archetypes",
    resource: content.ClassArchetype,
    save: content.SaveClassArchetypeBody,
    find: content.FindClassArchetypeBody,
    found: content.FindClassArchetypeResult,
    searchBucket: "class_archetypes",
  }),
  "content-source": define({
    table: "content_source",
    label: "content source",
    plural: "content sources",
    resource: content.ContentSource,
    save: content.SaveContentSourceBody,
    find: content.FindContentSourceBody,
    found: content.FindContentSourceResult,
    searchBucket: null,
  }),
  "creature": define({
    table: "creature",
    label: "creature",
    plural: "creatures",
    resource: content.Creature,
    save: content.SaveCreatureBody,
    find: content.FindCreatureBody,
    found: content.FindCreatureResult,
    searchBucket: "creatures",
  }),
  "hazard": define({
    table: "hazard",
    label: "hazard",
    plural: "hazards",
    resource: content.Hazard,
    save: content.SaveHazardBody,
    find: content.FindHazardBody,
    found: content.FindHazardResult,
    searchBucket: "hazards",
  }),
  "item": define({
    table: "item",
    label: "item",
    plural: "items",
    resource: content.Item,
    save: content.SaveItemBody,
    find: content.FindItemBody,
    found: content.FindItemResult,
    searchBucket: "items",
  }),
  "language": define({
    table: "language",
    label: "language",
    plural: "languages",
    resource: content.Language,
    save: content.SaveLanguageBody,
    find: content.FindLanguageBody,
    found: content.FindLanguageResult,
    searchBucket: "languages",
  }),
  "spell": define({
    table: "spell",
    label: "spell",
    plural: "spells",
    resource: content.Spell,
    save: content.SaveSpellBody,
    find: content.FindSpellBody,
    found: content.FindSpellResult,
    searchBucket: "spells",
    insertId: -1,
  }),
  "trait": define({
    table: "trait",
    label: "trait",
    plural: "traits",
    resource: content.Trait,
    save: content.SaveTraitBody,
    find: content.FindTraitBody,
    found: content.FindTraitResult,
    searchBucket: "traits",
  }),
  "versatile-heritage": define({
    table: "versatile_heritage",
    label: "versatile heritage",
    plural: "versatile heritages",
    resource: content.VersatileHeritage,
    save: content.SaveVersatileHeritageBody,
    find: content.FindVersatileHeritageBody,
    found: content.FindVersatileHeritageResult,
    searchBucket: "versatile_heritages",
  }),
} as const satisfies Record<ContentRecordType | "content-source", ContentTypeContract>;

/** A content type's name: `spell`, `class-archetype`, `content-source`. */
export type ContentTypeName = keyof typeof contentTypes;

/** Every content type name, in registry order. */
export const CONTENT_TYPE_NAMES = Object.keys(contentTypes) as ContentTypeName[];
