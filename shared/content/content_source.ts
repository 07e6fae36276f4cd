import { z } from "zod";
import { Id, UserId } from "../common.ts";
import { contentSchemas, findBase, MetaData, Operations, ShortText, Text } from "./fields.ts";

/** The access key of a key-locked source: only its owner ever reads it. */
export const ContentSourceKeys = z.looseObject({ access_key: z.string().max(200).optional() });

/** A content source (book): official when `user_id` is null, else its owner's homebrew. */
export const {
  Resource: ContentSource,
  Save: SaveContentSourceBody,
  Result: FindContentSourceResult,
} = contentSchemas("ContentSource", {
  name: z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'")),
  url: ShortText.nullable(),
  external_id: ShortText.nullable(),
  description: Text.nullable(),
  operations: Operations.nullable(),
  user_id: UserId.nullable(),
  contact_info: ShortText.nullable(),
  require_key: z.boolean(),
  /** Null for everyone but the owner. */
  keys: ContentSourceKeys.nullable(),
  is_published: z.boolean(),
  required_content_sources: z.array(Id).max(1_000),
  group: ShortText.nullable(),
  artwork_url: ShortText.nullable(),
  meta_data: MetaData.extend({ counts: z.record(z.string(), z.unknown()).optional() }),
});
export type ContentSource = z.infer<typeof ContentSource>;
export type SaveContentSourceBody = z.infer<typeof SaveContentSourceBody>;

/** Body of find-content-source; `user_id` lists that user's sources the caller may read. */
export const FindContentSourceBody = z.strictObject({ ...findBase, user_id: UserId.optional() });
export type FindContentSourceBody = z.infer<typeof FindContentSourceBody>;

/** Body of unlock-content-source: the source and its access key. */
export const UnlockContentSourceBody = z.strictObject({
  id: Id,
  access_key: z.string().min(1).max(200),
});
export type UnlockContentSourceBody = z.infer<typeof UnlockContentSourceBody>;
