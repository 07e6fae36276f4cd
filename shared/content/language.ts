import { z } from "zod";
import { Id } from "../common.ts";
import { Availability, Rarity } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  ExactNameFilter,
  findBase,
  MetaData,
  Name,
  ShortText,
  Text,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** A language. */
export const { Resource: Language, Save: SaveLanguageBody, Result: FindLanguageResult } =
  contentSchemas("Language", {
    content_source_id: Id,
    name: Name,
    description: Text,
    speakers: ShortText.nullable(),
    script: ShortText.nullable(),
    rarity: Rarity,
    availability: Availability,
    deprecated: Deprecated,
    meta_data: MetaData,
  });
export type Language = z.infer<typeof Language>;

/** Body of find-language. */
export const FindLanguageBody = z.strictObject({ ...findBase, name: ExactNameFilter.optional() });

/** The language content type: its registry entry. */
export const languageType = contentType({
  name: "language",
  label: "language",
  plural: "languages",
  resource: Language,
  save: SaveLanguageBody,
  find: FindLanguageBody,
  found: FindLanguageResult,
  searchBucket: "languages",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
