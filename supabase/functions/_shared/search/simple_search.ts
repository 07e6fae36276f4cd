import type { z } from "zod";
import {
  SEARCH_BUCKETS,
  type SearchBucket,
  type SearchDataSimpleResult,
  SIMPLE_DEFAULT_LIMIT,
} from "@shared/search.ts";
import type { Tx } from "../db/pool.ts";
import { escapeLike, parseSimpleQuery } from "./query_syntax.ts";
import { ident, SEARCH_TABLES, SqlParams } from "./search_tables.ts";

/** Shortest search text (after trimming) that is searched at all. */
export const SIMPLE_MIN_LENGTH = 2;

type SimpleResult = z.input<typeof SearchDataSimpleResult>;

/** The result with every bucket present and empty. */
export function emptyResult(): Record<SearchBucket, never[]> {
  return Object.fromEntries(SEARCH_BUCKETS.map((key) => [key, []])) as unknown as Record<
    SearchBucket,
    never[]
  >;
}

/** What simple mode reads from the body. */
export interface SimpleSearchInput {
  text?: string | null | undefined;
  content_sources?: readonly number[] | null | undefined;
  limit?: number | null | undefined;
}

/** Simple mode's one statement: its text and bound values. */
export interface SimpleStatement {
  text: string;
  values: unknown[];
}

/**
 * Builds simple mode's one statement. private.search_ranked_ids (see its migration) picks and
 * ranks the best rows of every content table with the indexes: a row matches when its full-text
 * document (name and description, English stemming) matches every wanted term, or its name is
 * similar to the wanted text (trigram similarity, which tolerates typos), or its name starts with
 * that text; rows containing an excluded term never match; ranked by exact name, then name prefix,
 * then name similarity plus text rank, then name and id. The rows themselves are then read by id
 * as the caller, so the read policies decide what comes back. Null when the text is too short or
 * holds nothing to search for.
 */
export function simpleStatement(input: SimpleSearchInput): SimpleStatement | null {
  const text = (input.text ?? "").trim();
  if (text.length < SIMPLE_MIN_LENGTH) return null;
  const query = parseSimpleQuery(text);
  if (query.nameText === "" && query.tsquery === "") return null;
  const params = new SqlParams();
  const name = query.nameText === "" ? null : query.nameText;
  const ranked = `private.search_ranked_ids(
    ${params.bind(name, "text")},
    ${params.bind(name === null ? null : `${escapeLike(name)}%`, "text")},
    ${params.bind(query.tsquery === "" ? null : query.tsquery, "text")},
    ${params.bind(query.excluded === "" ? null : query.excluded, "text")},
    ${params.bind(input.content_sources ?? [], "bigint[]")},
    ${params.bind(input.limit ?? SIMPLE_DEFAULT_LIMIT, "int")})`;
  const columns = SEARCH_TABLES.map((table) => {
    const hit = table.summary.map((c) => `'${c}', t.${ident(c)}`).join(", ");
    return `(select coalesce(jsonb_agg(jsonb_build_object(${hit}) order by h.ord), '[]'::jsonb)
      from hits h join public.${ident(table.table)} t on t.id = h.id
      where h.bucket = '${table.bucket}') as ${ident(table.bucket)}`;
  });
  return {
    text: `with hits as materialized (select h.bucket, h.id, h.ord from ${ranked} h)
      select ${columns.join(",\n")}`,
    values: params.values,
  };
}

/** Simple mode: every bucket present, all filled by one statement. */
export async function simpleSearch(tx: Tx, input: SimpleSearchInput): Promise<SimpleResult> {
  const statement = simpleStatement(input);
  if (!statement) return emptyResult();
  // The text is the same for every simple search, so its plan is kept per connection.
  const [row] = await tx.unsafe(statement.text, statement.values as never[], { prepare: true });
  return row as unknown as SimpleResult;
}
