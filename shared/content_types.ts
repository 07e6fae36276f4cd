/**
 * The registry of content types, the part the contract needs: every type's entry (its table, how
 * messages name it, its schemas and its search bucket and row), each declared in its own module.
 * Whatever covers every type reads it here (the contract table, search-data's buckets, content
 * updates); a function of one type imports that type's module only. The server-only part (find
 * filters, computed columns) is in `supabase/functions/_shared/content/tables.ts`.
 */
import { abilityBlockType } from "./content/ability_block.ts";
import { ancestryType } from "./content/ancestry.ts";
import { archetypeType } from "./content/archetype.ts";
import { backgroundType } from "./content/background.ts";
import { classType } from "./content/class.ts";
import { classArchetypeType } from "./content/class_archetype.ts";
import type { ContentTypeContract } from "./content/content_type.ts";
import { contentSourceType } from "./content/content_source.ts";
import { creatureType, hazardType } from "./content/creature.ts";
import { itemType } from "./content/item.ts";
import { languageType } from "./content/language.ts";
import { spellType } from "./content/spell.ts";
import { traitType } from "./content/trait.ts";
import { versatileHeritageType } from "./content/versatile_heritage.ts";
import type { ContentTypeName } from "./content_type_names.ts";

export type { ContentTypeContract } from "./content/content_type.ts";
export {
  CONTENT_TYPE_NAMES,
  ContentRecordType,
  ContentType,
  type ContentTypeName,
} from "./content_type_names.ts";

/** Every content type by the name the API gives it, in the order of CONTENT_TYPE_NAMES. */
export const contentTypes = {
  "ability-block": abilityBlockType,
  "ancestry": ancestryType,
  "archetype": archetypeType,
  "background": backgroundType,
  "class": classType,
  "class-archetype": classArchetypeType,
  "content-source": contentSourceType,
  "creature": creatureType,
  "hazard": hazardType,
  "item": itemType,
  "language": languageType,
  "spell": spellType,
  "trait": traitType,
  "versatile-heritage": versatileHeritageType,
} as const satisfies { [N in ContentTypeName]: ContentTypeContract<N> };
