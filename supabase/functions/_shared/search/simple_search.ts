import type { z } from "zod";
import {
  SEARCH_BUCKETS,
  type SearchBucket,
  type SearchDataSimpleResult,
  SIMPLE_DEFAULT_LIMIT,
} from "@shared/search.ts";
import type { Tx } from "../db.ts";
import { escapeLike, parseSimpleQuery } from "./query_syntax.ts";
import { ident, SEARCH_TABLES, SqlParams, visibleSources } from "./search_tables.ts";

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

/**
 * Simple mode: every content table in one statement. A row matches when its full-text document
 * (name and description, English stemming) matches every wanted term, or its name is similar to
 * the wanted text (trigram similarity, which tolerates typos), or its name starts with that text;
 * rows containing an excluded term never match. Each table's rows are ranked: exact name, then
 * name prefix, then the sum of name similarity and text rank; then name and id.
 */
export async function simpleSearch(tx: Tx, input: SimpleSearchInput): Promise<SimpleResult> {
  const text = (input.text ?? "").trim();
  if (text.length < SIMPLE_MIN_LENGTH) return emptyResult();
  const query = parseSimpleQuery(text);
  if (query.nameText === "" && query.tsquery === "") return emptyResult();

  const params = new SqlParams();
  const visible = visibleSources(input.content_sources, params);
  const limit = params.bind(input.limit ?? SIMPLE_DEFAULT_LIMIT, "int");
  const matches: string[] = [];
  let tier = "2";
  let score = "0";
  if (query.nameText !== "") {
    const name = params.bind(query.nameText, "text");
    const prefix = params.bind(`${escapeLike(query.nameText)}%`, "text");
    matches.push(`t.name operator(extensions.%) ${name}`, `t.name ilike ${prefix}`);
    tier = `case when lower(t.name) = lower(${name}) then 0 when t.name ilike ${prefix} then 1
      else 2 end`;
    score = `extensions.similarity(t.name, ${name})`;
  }
  if (query.tsquery !== "") {
    const tsquery = `to_tsquery('english'::regconfig, ${params.bind(query.tsquery, "text")})`;
    matches.push(`t.search_vector @@ ${tsquery}`);
    score = `${score} + ts_rank(t.search_vector, ${tsquery})`;
  }
  const excluded = query.excluded === ""
    ? "true"
    : `not (t.search_vector @@ to_tsquery('english'::regconfig, ${
      params.bind(query.excluded, "text")
    }))`;

  const columns = SEARCH_TABLES.map((table) => {
    const hit = table.summary.map((c) => `'${c}', t.${ident(c)}`).join(", ");
    return `(select coalesce(jsonb_agg(h.hit order by h.tier, h.score desc, h.name, h.id),
        '[]'::jsonb)
      from (
        select jsonb_build_object(${hit}) as hit, ${tier} as tier, ${score} as score, t.name, t.id
        from public.${ident(table.table)} t
        where ${visible("t")} and (${matches.join(" or ")}) and ${excluded}
        order by tier, score desc, t.name, t.id
        limit ${limit}
      ) h) as ${ident(table.bucket)}`;
  });
  const [row] = await tx.unsafe(`select ${columns.join(",\n")}`, params.values as never[]);
  return row as unknown as SimpleResult;
}
