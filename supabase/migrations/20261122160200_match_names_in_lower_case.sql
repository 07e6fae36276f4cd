-- Simple mode matches names through GIN trigram indexes on lower(name). The same comparisons on
-- `name` itself could also be served by the GiST trigram indexes of the similarity search
-- (20261122171000), which the planner tends to prefer although they are lossier and slower for
-- these conditions; an expression only these indexes cover settles the choice. Trigram matching
-- ignores case anyway, so results do not change.

-- Section: indexes
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    execute format(
      'create index %I on public.%I using gin (lower(name) extensions.gin_trgm_ops)',
      t || '_lower_name_trgm_idx', t);
  end loop;
end
$$;

-- Section: helpers
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
create or replace function private.search_ranked_ids(
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
           case when lower(t.name) = lower($2) then 0 when lower(t.name) like lower($3) then 1
             else 2 end,
           extensions.similarity(lower(t.name), lower($2)) %s
         from public.%I t
         where t.content_source_id = any($1) and %s
           and (lower(t.name) operator(extensions.%%) lower($2) or lower(t.name) like lower($3))',
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
