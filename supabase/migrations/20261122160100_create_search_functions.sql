-- The index-using half of search-data.
--
-- Why functions: under row-level security the planner may use an index only for conditions whose
-- operators are leakproof, because an index condition runs before the policy. ILIKE, the trigram
-- similarity operator and full-text `@@` are not leakproof, so a search run directly as the caller
-- reads every row. These helpers run as the table owner, where the indexes apply, and return only
-- ids of rows the caller may read: they filter with private.readable_source_ids(), the same helper
-- every content read policy calls. search-data then reads the rows by id as the caller, so the read
-- policies still decide what comes back. Values are always bound parameters; identifiers come from
-- the fixed lists below, never from a caller.

-- Section: helpers
-- Ids of the readable rows of one content table whose column matches every pattern of p_all and at
-- least one of p_any (case-insensitive LIKE patterns, wildcards escaped by the caller); null or
-- empty lists are ignored, but one of them must be given. Only trigram-indexed text columns.
create function private.search_matching_ids(
  p_table text,
  p_column text,
  p_all text[],
  p_any text[]
) returns setof bigint
language plpgsql stable security definer set search_path = '' rows 500 as $$
declare
  searchable constant jsonb := '{
    "trait": ["name", "description"],
    "item": ["name", "description", "usage", "craft_requirements"],
    "spell": ["name", "description", "cost", "trigger", "requirements", "range", "area",
              "targets", "duration", "defense"],
    "class": ["name", "description"],
    "class_archetype": ["name", "description"],
    "ability_block": ["name", "description", "cost", "trigger", "requirements", "frequency",
                      "access", "special"],
    "versatile_heritage": ["name", "description"],
    "language": ["name", "description"],
    "ancestry": ["name", "description"],
    "archetype": ["name", "description"],
    "background": ["name", "description"],
    "creature": ["name"],
    "hazard": ["name"]
  }';
  conditions text[] := '{}';
  alternatives text[] := '{}';
begin
  if not coalesce(searchable -> p_table ? p_column, false) then
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
     where t.content_source_id in (select private.readable_source_ids()) and %s',
    p_table, array_to_string(conditions, ' and ')
  ) using p_all, p_any;
end
$$;
grant execute on function private.search_matching_ids(text, text, text[], text[])
  to authenticated, service_role;

-- Simple mode's ranking, for every content table in one statement: the best p_limit readable rows
-- of each table in the given sources (none given: official published ones).
-- A row matches by name when its name is similar to p_name (trigram similarity, which tolerates
-- typos) or starts with p_prefix; it matches by text when its document matches p_tsquery; a row
-- whose document matches p_excluded never matches. Order: exact name, then name prefix, then score,
-- then name and id. The score of a name match is its similarity plus its text rank; a row matched
-- by text alone scores its text rank. So only the best p_limit text matches of a table can make
-- its list, and a word found in most descriptions costs one rank per matching row, no more.
-- p_tsquery and p_excluded are to_tsquery input that search-data builds from quoted letters and
-- digits; null skips them. p_name and p_prefix are both null or both given.
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
  tables constant text[][] := array[
    ['ability_blocks', 'ability_block'], ['ancestries', 'ancestry'], ['archetypes', 'archetype'],
    ['backgrounds', 'background'], ['classes', 'class'], ['creatures', 'creature'],
    ['hazards', 'hazard'], ['items', 'item'], ['languages', 'language'], ['spells', 'spell'],
    ['traits', 'trait'], ['versatile_heritages', 'versatile_heritage'],
    ['class_archetypes', 'class_archetype']
  ];
  rank constant text := 'ts_rank(t.search_vector, to_tsquery(''english''::regconfig, $4))';
  visible bigint[];
  excluded text := 'true';
  candidates text[];
  branches text[] := '{}';
begin
  if p_name is null and p_tsquery is null then
    return;
  end if;
  select coalesce(array_agg(r.id), '{}') into visible
  from private.readable_source_ids() r(id)
  where case
    when coalesce(cardinality(p_sources), 0) = 0 then r.id in (
      select s.id from public.content_source s where s.user_id is null and s.is_published)
    else r.id = any(p_sources)
  end;
  if p_excluded is not null then
    excluded := 'not (t.search_vector @@ to_tsquery(''english''::regconfig, $5))';
  end if;
  for i in 1 .. array_length(tables, 1) loop
    candidates := '{}';
    if p_name is not null then
      candidates := candidates || format(
        'select t.id, t.name,
           case when lower(t.name) = lower($2) then 0 when t.name ilike $3 then 1 else 2 end,
           extensions.similarity(t.name, $2) %s
         from public.%I t
         where t.content_source_id = any($1) and %s
           and (t.name operator(extensions.%%) $2 or t.name ilike $3)',
        case when p_tsquery is null then '' else '+ ' || rank end, tables[i][2], excluded);
    end if;
    if p_tsquery is not null then
      candidates := candidates || format(
        '(select t.id, t.name, 2, %s from public.%I t
          where t.content_source_id = any($1) and %s
            and t.search_vector @@ to_tsquery(''english''::regconfig, $4)
          order by 4 desc, 2, 1 limit $6)',
        rank, tables[i][2], excluded);
    end if;
    -- A row found both ways keeps its better place.
    branches := branches || format(
      '(select %L::text, d.id,
          (row_number() over (order by d.tier, d.score desc, d.name, d.id))::integer
        from (
          select distinct on (c.id) c.id, c.name, c.tier, c.score
          from (%s) c(id, name, tier, score)
          order by c.id, c.tier, c.score desc
        ) d
        order by d.tier, d.score desc, d.name, d.id
        limit $6)',
      tables[i][1], array_to_string(candidates, ' union all '));
  end loop;
  -- One statement, planned with the values as constants so every index condition applies.
  return query execute array_to_string(branches, ' union all ')
    using visible, p_name, p_prefix, p_tsquery, p_excluded, p_limit;
end
$$;
grant execute on function private.search_ranked_ids(text, text, text, text, bigint[], integer)
  to authenticated, service_role;
