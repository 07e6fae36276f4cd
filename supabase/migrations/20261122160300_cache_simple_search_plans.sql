-- Simple search planned once per connection instead of once per request. Planning the thirteen
-- tables' search (26 index scans) cost about as much as running it, so each table now has a helper
-- with static SQL, whose plan PL/pgSQL keeps for the session, and private.search_ranked_ids calls
-- them all. What a search finds and how it ranks is unchanged
-- (20261122160100_create_search_functions.sql describes it).

-- Section: helpers
-- private.search_ranked_<table>: the best p_limit readable rows of one table among p_visible
-- sources, ranked. The plan is generic on purpose: every condition is an index condition whatever
-- the values, and the branch for a missing name or query is skipped at run time.
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
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
              and t.content_source_id = any(p_visible)
              and (lower(t.name) operator(extensions.%%) p_name or lower(t.name) like p_prefix)
              and (p_excluded is null or not t.search_vector @@ p_excluded)
            union all
            (select t.id, t.name, 2, ts_rank(t.search_vector, p_query)
             from public.%2$I t
             where p_query is not null
               and t.content_source_id = any(p_visible)
               and t.search_vector @@ p_query
               and (p_excluded is null or not t.search_vector @@ p_excluded)
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
    execute format(
      'grant execute on function private.%I(bigint[], text, text, tsquery, tsquery, integer)
         to authenticated, service_role',
      'search_ranked_' || t);
  end loop;
end
$$;

-- The same signature and result as before; names and queries are prepared once here (lower case,
-- parsed tsquery) so the table helpers compare against constants.
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
  visible bigint[];
  v_name text := lower(p_name);
  v_prefix text := lower(p_prefix);
  v_query tsquery := to_tsquery('english'::regconfig, p_tsquery);
  v_excluded tsquery := to_tsquery('english'::regconfig, p_excluded);
begin
  if v_name is null and v_query is null then
    return;
  end if;
  select coalesce(array_agg(r.id), '{}') into visible
  from private.readable_source_ids() r(id)
  where case
    when coalesce(cardinality(p_sources), 0) = 0 then r.id in (
      select s.id from public.content_source s where s.user_id is null and s.is_published)
    else r.id = any(p_sources)
  end;
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
