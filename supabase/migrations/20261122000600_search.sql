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

-- Section: tables
-- The full-text document: name (weight A) and description (weight B), English configuration.
-- Tables without a description column (creatures, hazards) index the name alone. Generated and
-- stored, so it can never drift from the row and writers never set it (it has no column grant).
do $$
declare
  t record;
begin
  for t in select c.name, 'description' = any (c.searched_columns) as described
    from private.content_table c order by c.name
  loop
    execute format(
      'alter table public.%I add column search_vector tsvector generated always as (
         setweight(to_tsvector(''english''::regconfig, name), ''A'')%s) stored',
      t.name,
      case when t.described
        then ' || setweight(to_tsvector(''english''::regconfig, description), ''B'')' else '' end);
  end loop;
end
$$;

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
do $$
declare
  t record;
  c text;
begin
  for t in select ct.name, ct.searched_columns from private.content_table ct order by ct.name
  loop
    execute format('create index %I on public.%I using gin (search_vector)',
      t.name || '_search_vector_idx', t.name);
    foreach c in array t.searched_columns
    loop
      execute format('create index %I on public.%I using gin (%I extensions.gin_trgm_ops)',
        t.name || '_' || c || '_trgm_idx', t.name, c);
    end loop;
    execute format(
      'create index %I on public.%I using gin (lower(name) extensions.gin_trgm_ops)',
      t.name || '_lower_name_trgm_idx', t.name);
    execute format('create index %I on public.%I using gist (name extensions.gist_trgm_ops)',
      t.name || '_name_similarity_idx', t.name);
  end loop;
end
$$;

-- Section: helpers
-- Ids of the readable rows of one content table whose column matches every pattern of p_all and at
-- least one of p_any (case-insensitive LIKE patterns, wildcards escaped by the caller); null or
-- empty lists are ignored, but one of them must be given. Only the searched (trigram-indexed)
-- columns of private.content_table. Advanced mode's contains-matches, each match checked on its
-- own source.
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
    'select t.id from public.%I t
     where exists (
       select 1 from public.content_source s
       where s.id = t.content_source_id
         and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
           (select auth.uid())))
       and %s',
    p_table, array_to_string(conditions, ' and ')
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
-- stays a filter: the generic plan otherwise read the source index for every visible row.
do $$
declare
  t text;
begin
  for t in select c.name from private.content_table c order by c.name
  loop
    execute format($fn$
      create function private.%1$I(
        p_visible bigint[],
        p_name text,
        p_prefix text,
        p_query tsquery,
        p_excluded tsquery,
        p_limit integer
      ) returns table (id bigint, ord integer)
      language plpgsql stable security definer set search_path = ''
      set plan_cache_mode = force_generic_plan rows 20 as $body$
      begin
        return query
        select d.id, (row_number() over (order by d.tier, d.score desc, d.name, d.id))::integer
        from (
          select distinct on (c.id) c.id, c.name, c.tier, c.score
          from (
            select t.id, t.name,
              case when lower(t.name) = p_name then 0 when lower(t.name) like p_prefix then 1
                else 2 end,
              extensions.similarity(lower(t.name), p_name)
                + coalesce(ts_rank(t.search_vector, p_query), 0)
            from public.%2$I t
            where p_name is not null
              and t.content_source_id + 0 = any(p_visible)
              and (lower(t.name) operator(extensions.%%) p_name or lower(t.name) like p_prefix)
              and (p_excluded is null or not t.search_vector @@ p_excluded)
            union all
            (select f.id, f.name, 2, ts_rank(f.search_vector, p_query)
             from (
               select t.id, t.name, t.search_vector from public.%2$I t
               where p_query is not null
                 and t.content_source_id + 0 = any(p_visible)
                 and t.search_vector @@ p_query
                 and (p_excluded is null or not t.search_vector @@ p_excluded)
               limit 1000
             ) f
             order by 4 desc, 2, 1
             limit p_limit)
          ) c(id, name, tier, score)
          order by c.id, c.tier, c.score desc
        ) d
        order by d.tier, d.score desc, d.name, d.id
        limit p_limit;
      end
      $body$
    $fn$, 'search_ranked_' || t, t);
    -- They trust the visible sources they are given: only private.search_ranked_ids, which
    -- computes that list from the caller's readable sources, calls them (as their owner).
    execute format(
      'grant execute on function private.%I(bigint[], text, text, tsquery, tsquery, integer)
         to service_role',
      'search_ranked_' || t);
  end loop;
end
$$;

-- The whole of simple mode in one call: the best p_limit readable rows of each content table in
-- the given sources (none given: official published ones), as (bucket, id, order). p_tsquery and
-- p_excluded are to_tsquery input that search-data builds from quoted letters and digits; null
-- skips them. p_name and p_prefix are both null or both given. Names and queries are prepared once
-- here (lower case, parsed tsquery) so the table helpers compare against constants. The thirteen
-- calls are written out (static SQL keeps each one's plan). The sources searched are the official
-- published ones, readable by everyone, or those of the given ones the caller may read, each
-- checked on its own row: never the set of every readable source.
create function private.search_ranked_ids(
  p_name text,
  p_prefix text,
  p_tsquery text,
  p_excluded text,
  p_sources bigint[],
  p_limit integer
) returns table (bucket text, id bigint, ord integer)
language plpgsql stable security definer set search_path = '' rows 260 as $$
declare
  visible bigint[];
  v_name text := lower(p_name);
  v_prefix text := lower(p_prefix);
  v_query tsquery := to_tsquery('english'::regconfig, p_tsquery);
  v_excluded tsquery := to_tsquery('english'::regconfig, p_excluded);
begin
  if v_name is null and v_query is null then
    return;
  end if;
  if coalesce(cardinality(p_sources), 0) = 0 then
    select coalesce(array_agg(o.id), '{}') into visible from private.official_source_ids() o(id);
  else
    select coalesce(array_agg(s.id), '{}') into visible
    from public.content_source s
    where s.id = any(p_sources)
      and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
        (select auth.uid()));
  end if;
  return query
    select 'ability_blocks', r.id, r.ord
    from private.search_ranked_ability_block(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'ancestries', r.id, r.ord
    from private.search_ranked_ancestry(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'archetypes', r.id, r.ord
    from private.search_ranked_archetype(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'backgrounds', r.id, r.ord
    from private.search_ranked_background(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'classes', r.id, r.ord
    from private.search_ranked_class(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'creatures', r.id, r.ord
    from private.search_ranked_creature(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'hazards', r.id, r.ord
    from private.search_ranked_hazard(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'items', r.id, r.ord
    from private.search_ranked_item(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'languages', r.id, r.ord
    from private.search_ranked_language(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'spells', r.id, r.ord
    from private.search_ranked_spell(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'traits', r.id, r.ord
    from private.search_ranked_trait(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'versatile_heritages', r.id, r.ord
    from private.search_ranked_versatile_heritage(
      visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'class_archetypes', r.id, r.ord
    from private.search_ranked_class_archetype(
      visible, v_name, v_prefix, v_query, v_excluded, p_limit) r;
end
$$;

-- Section: grants
-- The per-table helpers are granted in their loop above (their names are generated).
-- anon: signed-out visitors search what they may read, like everyone else.
grant execute on function private.search_matching_ids(text, text, text[], text[])
  to anon, authenticated, service_role;
grant execute on function private.search_ranked_ids(text, text, text, text, bigint[], integer)
  to anon, authenticated, service_role;
