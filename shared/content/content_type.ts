import { z } from "zod";
import { type ContentTypeName, tableOf } from "../content_type_names.ts";
import { ExactNameFilter } from "./fields.ts";

/** How a find's `name` matches: the whole name, or any part of it (both in any case). */
export type NameMatch = "exact" | "part";

/** What the contract knows of one content type; each type's module declares its own. */
export interface ContentTypeContract<
  Name extends ContentTypeName = ContentTypeName,
  Resource extends z.ZodObject = z.ZodObject,
  Save extends z.ZodType = z.ZodType,
  Find extends z.ZodType = z.ZodType,
  Found extends z.ZodType = z.ZodType,
> {
  /** The name the API gives it: `find-<name>`, `create-<name>`. */
  name: Name;
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
  /** How `find-<type>` matches `name`: exactly where interface.md lists it, else by part. */
  nameMatch: NameMatch;
  /** Result of `find-<type>`: one record or null for one id, else a list. */
  found: Found;
  /** The search-data bucket of the type; null when search does not cover it. */
  searchBucket: string | null;
  /** The trimmed row search-data's simple mode returns in that bucket (ContentHit for most). */
  searchRow: z.ZodObject;
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

/**
 * A content type's entry, its table named as every table is: after the type, and how its find
 * matches `name` as its find body's schema says (ExactNameFilter or not).
 */
export function contentType<const T extends Omit<ContentTypeContract, "table" | "nameMatch">>(
  entry: T,
): T & { table: string; nameMatch: NameMatch } {
  return { ...entry, table: tableOf(entry.name), nameMatch: nameMatchOf(entry.find) };
}

function nameMatchOf(find: z.ZodType): NameMatch {
  const body = find instanceof z.ZodPipe ? find.in : find;
  const name = body instanceof z.ZodObject ? body.shape.name : undefined;
  const filter = name instanceof z.ZodOptional ? name.unwrap() : name;
  return filter === ExactNameFilter ? "exact" : "part";
}
