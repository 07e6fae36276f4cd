-- Search: what search-data and the similarity search need to stay fast on a large corpus. A stored
-- full-text document on every content table (English stemming, name weighted above description),
-- trigram indexes on names and on every text column advanced mode filters with a contains-match,
-- and the helpers that use them. Nothing here changes who may read what: the helpers return only
-- ids of rows whose own source private.source_is_readable() (content baseline) lets the caller
-- read, and search-data then reads the rows by id as the caller, under the read policies.
--
-- Why helpers at all: under row-level security the planner may use an index only for conditions
-- whose operators are leakproof, because an index condition runs before the policy. ILIKE, the
-- trigram similarity operator and full-text `@@` are not leakproof, so a search run directly as
-- the caller reads every row. The helpers run as the table owner, where the indexes apply. Values
-- are always bound parameters; identifiers come from private.content_table, never from a caller.

-- Most of it is made per content table from the list (private.content_table) by the content
-- baseline's private.provision_content_table, which every listed table runs through: the stored
-- document, the indexes and the ranked-search helper described below, and
-- private.search_ranked_ids (private.build_content_lists). This file says what they are and why,
-- and holds the rest.

-- Section: tables
-- The full-text document, `search_vector`: name (weight A) and description (weight B), English
-- configuration. Tables without a description column in their searched columns (creatures,
-- hazards) index the name alone. Generated and stored, so it can never drift from the row and
-- writers never set it (it has no column grant).

-- Section: indexes
-- Per content table:
--   <table>_search_vector_idx (GIN): the full-text document.
--   <table>_<column>_trgm_idx (GIN trigram), one per searched column: name similarity (typo
--     tolerance), name prefixes, and the case-insensitive contains-matches of advanced mode
--     (`ilike '%word%'`), which would otherwise read every row.
--   <table>_lower_name_trgm_idx (GIN trigram on lower(name)): simple mode's name matching. The
--     same comparisons on `name` could also be served by the GiST indexes below, which the planner
--     tends to prefer although they are lossier and slower for these conditions; an expression only
--     these indexes cover settles the choice. Trigram matching ignores case anyway.
--   <table>_name_similarity_idx (GiST trigram): the similarity search (vector-db-query-collection)
--     reads nearest-first by trigram distance (1 - similarity), which GIN cannot order by.

-- Section: helpers
-- Ids of the readable rows of one content table whose column matches every pattern of p_all and at
-- least one of p_any (case-insensitive LIKE patterns, wildcards escaped by the caller); null or
-- empty lists are ignored, but one of them must be given. Only the searched (trigram-indexed)
-- columns of private.content_table. Advanced mode's contains-matches, each match checked on its
-- own source (private.readable_source_condition, content baseline).
create function private.search_matching_ids(
  p_table text,
  p_column text,
  p_all text[],
  p_any text[]
) returns setof bigint
language plpgsql stable security definer set search_path = '' rows 500 as $$
declare
  conditions text[] := '{}';
  alternatives text[] := '{}';
begin
  if not exists (
    select 1 from private.content_table c
    where c.name = p_table and p_column = any (c.searched_columns)
  ) then
    raise exception 'Invalid value: % of % is not searchable', p_column, p_table;
  end if;
  for i in 1 .. coalesce(cardinality(p_all), 0) loop
    conditions := conditions || format('t.%I ilike $1[%s]', p_column, i);
  end loop;
  for i in 1 .. coalesce(cardinality(p_any), 0) loop
    alternatives := alternatives || format('t.%I ilike $2[%s]', p_column, i);
  end loop;
  if cardinality(alternatives) > 0 then
    conditions := conditions || ('(' || array_to_string(alternatives, ' or ') || ')');
  end if;
  if cardinality(conditions) = 0 then
    raise exception 'Invalid value: no pattern to search % of % for', p_column, p_table;
  end if;
  -- EXECUTE plans with the patterns as constants, so the trigram index serves each of them.
  return query execute format(
    'select t.id from public.%I t where %s and %s',
    p_table, private.readable_source_condition('t.content_source_id'),
    array_to_string(conditions, ' and ')
  ) using p_all, p_any;
end
$$;

-- Simple mode's ranking, planned once per connection instead of once per request: planning the
-- thirteen tables' search (26 index scans) cost about as much as running it, so each table has a
-- helper with static SQL, whose plan PL/pgSQL keeps for the session, and private.search_ranked_ids
-- calls them all.
--
-- private.search_ranked_<table>: the best p_limit readable rows of one table among p_visible
-- sources, ranked. A row matches by name when its lower-case name is similar to p_name (trigram
-- similarity, which tolerates typos) or starts with p_prefix; it matches by text when its document
-- matches p_query; a row whose document matches p_excluded never matches. Order: exact name, then
-- name prefix, then score, then name and id. The score of a name match is its similarity plus its
-- text rank; a row matched by text alone scores its text rank. At most 1,000 text-only matches per
-- table are ranked (in index order, not chosen by rank), so a word found in most descriptions costs
-- a bounded amount; a word found in fewer rows ranks exactly. The plan is generic on purpose:
-- every condition is an index condition whatever the values, and the branch for a missing name or
-- query is skipped at run time. The source condition is written `content_source_id + 0` so it
-- stays a filter: the generic plan otherwise read the source index for every visible row. They
-- trust the visible sources they are given: only private.search_ranked_ids, which computes that
-- list from the caller's readable sources, calls them (as their owner; they are granted to the
-- service role alone).
--
-- private.search_ranked_ids: the whole of simple mode in one call: the best p_limit readable rows
-- of each content table in the given sources (none given: official published ones), as (bucket,
-- id, order), one static call of each table's helper (static SQL keeps each one's plan). p_tsquery
-- and p_excluded are to_tsquery input that search-data builds from quoted letters and digits; null
-- skips them. p_name and p_prefix are both null or both given. Names and queries are prepared once
-- there (lower case, parsed tsquery) so the table helpers compare against constants. The sources
-- searched are the official published ones, readable by everyone, or those of the given ones the
-- caller may read, each checked on its own row: never the set of every readable source.

-- Section: grants
-- anon: signed-out visitors search what they may read, like everyone else.
grant execute on function private.search_matching_ids(text, text, text[], text[])
  to anon, authenticated, service_role;
grant execute on function private.search_ranked_ids(text, text, text, text, bigint[], integer)
  to anon, authenticated, service_role;
