/**
 * The names of the content types, without their schemas: what a module needs that only names or
 * picks a type (delete-content, similarity, search-data's `type`), so that it does not build every
 * type's schemas. The schemas of each type are in its own module (`shared/content/<type>.ts`), and
 * the whole registry is `shared/content_types.ts`.
 */
import { z } from "zod";

/** Every content type by the name the API gives it (`find-<name>`, `create-<name>`). */
export const CONTENT_TYPE_NAMES = [
  "ability-block",
  "ancestry",
  "archetype",
  "background",
  "class",
  "class-archetype",
  "content-source",
  "creature",
  "hazard",
  "item",
  "language",
  "spell",
  "trait",
  "versatile-heritage",
] as const;

/** A content type's name: `spell`, `class-archetype`, `content-source`. */
export type ContentTypeName = (typeof CONTENT_TYPE_NAMES)[number];

/** The table (schema `public`) of a type the API names: its name with underscores. */
export function tableOf<N extends string>(name: N): string {
  return name.replaceAll("-", "_");
}

/** Every kind of content record: one table each, named as the API names them. */
export type ContentRecordType = Exclude<ContentTypeName, "content-source">;
export const ContentRecordType = z.enum(
  CONTENT_TYPE_NAMES.filter((name): name is ContentRecordType => name !== "content-source"),
).meta({ id: "ContentRecordType" });

/** Content types as search-data and the interface name them (hazards have no type filter). */
export type ContentType = Exclude<ContentTypeName, "hazard">;
export const ContentType = z.enum(
  CONTENT_TYPE_NAMES.filter((name): name is ContentType => name !== "hazard"),
).meta({ id: "ContentType" });
