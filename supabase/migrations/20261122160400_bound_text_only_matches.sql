-- Bounds the cost of a word found in most descriptions. Simple search ranks a table's text-only
-- matches (rows whose name does not match) by text rank; for a common word that meant ranking
-- tens of thousands of rows, about 100 ms on 100,000 rows. Now at most 1,000 text-only matches per
-- table are ranked (in index order, not chosen by rank), so the best p_limit among them make the
-- list. Name matches (exact, prefix, similar) are all still ranked, and a word found in fewer than
-- 1,000 rows of a table ranks exactly as before.
-- Also: the source condition is written `content_source_id + 0`, so it stays a filter. The generic
-- plan otherwise read the source index for every visible row (nearly all of them) to intersect it
-- with the trigram or full-text matches, which cost more than it saved.

-- Section: helpers
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    execute format($fn$
      create or replace function private.%1$I(
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
    execute format(
      'grant execute on function private.%I(bigint[], text, text, tsquery, tsquery, integer)
         to authenticated, service_role',
      'search_ranked_' || t);
  end loop;
end
$$;

