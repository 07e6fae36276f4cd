import type {
  PopulateCollectionBody,
  QueryCollectionBody,
  SimilarityMatch,
  SimilarityType,
  SimilarityWhere,
} from "@shared/similarity.ts";
import type { Tx } from "../db/pool.ts";
import { type FilterColumn, similarityTables } from "./similarity_tables.ts";

type Scalar = string | number;
type Condition<T extends Scalar> = T | { $eq: T } | { $in: T[] } | undefined;

/** The values a condition admits: `v`, `{$eq: v}` and `{$in: [...]}` all become a list. */
function admitted<T extends Scalar>(condition: Condition<T>): T[] | undefined {
  if (condition === undefined) return undefined;
  if (typeof condition !== "object") return [condition];
  return "$eq" in condition ? [condition.$eq] : [...condition.$in];
}

/** Any query word may match: the plain query's AND becomes OR (lexemes are quoted, so safe). */
const TSQUERY =
  "replace(plainto_tsquery('english'::regconfig, $1::text)::text, ' & ', ' | ')::tsquery";

const ALL_TYPES = Object.keys(similarityTables) as SimilarityType[];

/** Weights of the stored document's labels {D, C, B, A}: name (A) counts above description (B). */
const RANK_WEIGHTS = "'{0.2, 0.4, 0.6, 1.0}'::float4[]";

/** Plain (string, number, boolean) fields of a row as metadata, as a SQL expression. */
const METADATA = `(
  select coalesce(jsonb_object_agg(f.key, f.value), '{}'::jsonb)
  from jsonb_each(to_jsonb(t) - 'search_vector') f
  where jsonb_typeof(f.value) in ('string', 'number', 'boolean')
)`;

/**
 * A UTC timestamp as `to_jsonb` writes it (`...+00:00`; the connection's time zone is UTC). The
 * rest of the API writes `Z` (the timestamptz parser in `db/pool.ts`), and the digits are the same.
 */
const JSONB_UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00:00$/;

/**
 * Metadata with its timestamp columns (named `*_at`, as every timestamptz column of the content
 * tables is) in the API's `Z` form. Other strings are left alone, even one that looks like a date.
 */
function withZuluTimestamps(
  data: Record<string, Scalar | boolean>,
): Record<string, Scalar | boolean> {
  const out: Record<string, Scalar | boolean> = {};
  for (const [key, value] of Object.entries(data)) {
    out[key] = typeof value === "string" && key.endsWith("_at")
      ? value.replace(JSONB_UTC_TIMESTAMP, "$1Z")
      : value;
  }
  return out;
}

/**
 * Similarity on the database the content already lives in, so it needs no other service and is
 * never stale. `name`: trigram distance (1 - similarity, pg_trgm's `<->`), read nearest-first from
 * a GiST index. `content`: English full-text rank over the stored `search_vector` (name, then
 * description; creatures and hazards: name only), any query word matching, as distance
 * 1 - rank/(rank + 1). Each table gives its nearest rows, then the union is cut to the nearest.
 */
export class PostgresSimilarity {
  readonly kind = "postgres";

  async populate(tx: Tx, request: PopulateCollectionBody): Promise<number> {
    // The database keeps the indexes current on every write; populating only counts what is there.
    const { table } = similarityTables[request.type];
    const rows = await tx.unsafe<{ n: number }[]>(
      `select count(*)::int as n from public.${table} where id = any($1::bigint[])`,
      [request.ids],
    );
    return rows[0]?.n ?? 0;
  }

  async query(tx: Tx, request: QueryCollectionBody): Promise<SimilarityMatch[]> {
    const where: SimilarityWhere = request.where ?? {};
    const types: SimilarityType[] = admitted(where._type) ?? ALL_TYPES;
    // $1 query text, $2 largest distance, $3 result count; filters follow.
    const params: (Scalar | Scalar[])[] = [
      request.query,
      Math.min(request.maxDistance, 1),
      request.nResults,
    ];
    const filters: string[] = [];
    const bind = (value: Scalar[], cast: string): string => {
      params.push(value);
      return `$${params.length}::${cast}`;
    };
    const ids = admitted(where.id);
    if (ids) filters.push(`t.id = any(${bind(ids, "bigint[]")})`);
    const sources = admitted(where.content_source_id);
    if (sources) filters.push(`t.content_source_id = any(${bind(sources, "bigint[]")})`);
    const optional: [FilterColumn, Scalar[] | undefined, string][] = [
      ["rarity", admitted(where.rarity), "text[]"],
      ["level", admitted(where.level), "int[]"],
      ["rank", admitted(where.rank), "int[]"],
    ];
    const needed = optional.flatMap(([column, values, cast]) =>
      values ? [{ column, values, cast }] : []
    );
    for (const { column, values, cast } of needed) {
      const lhs = column === "rarity" ? "t.rarity::text" : `t.${column}`;
      filters.push(`${lhs} = any(${bind(values, cast)})`);
    }

    const branches: string[] = [];
    const lookups: string[] = [];
    for (const type of new Set(types)) {
      const spec = similarityTables[type];
      // A record without the filtered field does not match, as with metadata filters elsewhere.
      if (needed.some(({ column }) => !spec.columns.has(column))) continue;
      const conditions = filters.length > 0 ? ` and ${filters.join(" and ")}` : "";
      branches.push(
        request.collection === "name"
          ? `(select '${type}'::text as _type, t.id,
                (t.name operator(extensions.<->) $1::text)::float8 as distance
              from public.${spec.table} t
              where (t.name operator(extensions.<->) $1::text) <= $2::float8${conditions}
              order by t.name operator(extensions.<->) $1::text
              limit $3::int)`
          : `(select '${type}'::text as _type, t.id,
                1 - ts_rank(${RANK_WEIGHTS}, t.search_vector, ${TSQUERY}, 32)::float8 as distance
              from public.${spec.table} t
              where t.search_vector @@ ${TSQUERY}${conditions}
                and 1 - ts_rank(${RANK_WEIGHTS}, t.search_vector, ${TSQUERY}, 32)::float8
                  <= $2::float8
              order by distance
              limit $3::int)`,
      );
      // Metadata is built for the final few rows only, not for every candidate.
      lookups.push(
        `select '${type}'::text as _type, t.id, ${METADATA} as data from public.${spec.table} t
         where t.id in (select r.id from ranked r where r._type = '${type}')`,
      );
    }
    if (branches.length === 0) return [];
    const rows = await tx.unsafe<{ data: Record<string, Scalar | boolean>; distance: number }[]>(
      `with ranked as (
         select * from (${branches.join(" union all ")}) candidates
         order by distance, _type, id
         limit $3::int
       )
       select m.data || jsonb_build_object('_type', r._type) as data, r.distance
       from ranked r join (${lookups.join(" union all ")}) m using (_type, id)
       order by r.distance, r._type, r.id`,
      params,
    );
    return rows.map((r) => ({
      data: withZuluTimestamps(r.data),
      distance: Math.max(0, Math.min(1, r.distance)),
    }));
  }
}
