import { z } from "zod";
import { Id, UserId } from "../common.ts";
import {
  contentSchemas,
  Deprecated,
  findBase,
  MetaData,
  Operations,
  ShortText,
  Text,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** The access key of a key-locked source: only its owner ever reads it. */
export const ContentSourceKeys = z.looseObject({ access_key: z.string().max(200).optional() });

const source = contentSchemas("ContentSource", {
  name: z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'")),
  url: ShortText.nullable(),
  external_id: ShortText.nullable(),
  /** The web client's name of `external_id`: the same value, answered beside it. */
  foundry_id: ShortText.nullable(),
  description: Text.nullable(),
  operations: Operations.nullable(),
  user_id: UserId.nullable(),
  contact_info: ShortText.nullable(),
  require_key: z.boolean(),
  /** Null for everyone but the owner. */
  keys: ContentSourceKeys.nullable(),
  is_published: z.boolean(),
  required_content_sources: z.array(Id).max(1_000),
  /** The shelf the web client lists the book under (docs/content.md lists the values). */
  group: ShortText.nullable(),
  artwork_url: ShortText.nullable(),
  deprecated: Deprecated,
  meta_data: MetaData.extend({ counts: z.record(z.string(), z.unknown()).optional() }),
});

/** A content source (book): official when `user_id` is null, else its owner's homebrew. */
export const ContentSource = source.Resource;
export type ContentSource = z.infer<typeof ContentSource>;

/** Result of find-content-source. */
export const FindContentSourceResult = source.Result;

/**
 * Body of create-content-source. `foundry_id` (the web client's name) is read as `external_id`;
 * sending both with different values is refused.
 */
export const SaveContentSourceBody = source.Save.transform(({ foundry_id, ...body }, ctx) => {
  if (foundry_id === undefined) return body;
  if (body.external_id !== undefined && body.external_id !== foundry_id) {
    ctx.issues.push({
      code: "custom",
      path: ["foundry_id"],
      input: foundry_id,
      message: "foundry_id is another name of external_id: send one, or the same value in both",
    });
    return z.NEVER;
  }
  return { ...body, external_id: foundry_id };
});
export type SaveContentSourceBody = z.infer<typeof SaveContentSourceBody>;

/**
 * Body of find-content-source. `user_id` lists that user's sources the caller may read. The web
 * client's filters mean what the reference service makes them mean: `homebrew` true includes
 * users' sources (without it, and without `id` or `user_id`, only official ones are listed),
 * `published` matches `is_published`, `group` and `external_id` (or `foundry_id`) match exactly,
 * and with `external_id` or `foundry_id` and no `id` list the answer is one source or null.
 */
export const FindContentSourceBody = z.strictObject({
  ...findBase,
  user_id: UserId.optional(),
  homebrew: z.boolean().optional(),
  published: z.boolean().optional(),
  group: ShortText.optional(),
  external_id: ShortText.optional(),
  foundry_id: ShortText.optional(),
}).transform(({ foundry_id, ...body }) => {
  const external_id = body.external_id ?? foundry_id;
  const referenceFilters = body.homebrew !== undefined || body.published !== undefined ||
    body.group !== undefined || external_id !== undefined;
  // The reference lists official sources only, in any published state the caller may see, unless
  // `homebrew` is true or ids are named; undefined keeps this API's default (official published).
  const official = referenceFilters && body.id === undefined ? body.homebrew !== true : undefined;
  return { ...body, external_id, official };
});
export type FindContentSourceBody = z.infer<typeof FindContentSourceBody>;

/** Body of unlock-content-source: the source and its access key. */
export const UnlockContentSourceBody = z.strictObject({
  id: Id,
  access_key: z.string().min(1).max(200),
});
export type UnlockContentSourceBody = z.infer<typeof UnlockContentSourceBody>;

/** The content-source content type: its registry entry. */
export const contentSourceType = contentType({
  name: "content-source",
  label: "content source",
  plural: "content sources",
  resource: ContentSource,
  save: SaveContentSourceBody,
  find: FindContentSourceBody,
  found: FindContentSourceResult,
  searchBucket: null,
  searchRow: ContentHit,
  createRequires: ["name"],
  saveRules: [
    "`foundry_id` is another name of `external_id`: send one, or the same value in both.",
    "With `require_key` true the source needs `keys.access_key` of at least 8 characters " +
    "(given now, or kept from before).",
  ],
});
