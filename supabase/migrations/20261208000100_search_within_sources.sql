-- search-data's advanced text filters matched every readable row of the table before the request's
-- sources narrowed them: rows of sources the request does not search cost as much as its own, so a
-- filter the trigram index cannot narrow (one-letter words) ran into the statement timeout on
-- 100,000 rows of another user's unpublished source, hidden from the caller. The match
-- now takes the sources searched: the request's `content_sources`, or by default the official
-- published ones, as search-data's own condition. The four-argument form stays for functions
-- deployed before this migration; a later migration may drop it once none calls it.

create function private.search_matching_ids(
  p_table text,
  p_column text,
  p_all text[],
  p_any text[],
  p_sources bigint[]
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
  -- EXECUTE plans with the patterns and sources as constants, so the planner weighs the trigram
  -- index against the sources' own rows.
  return query execute format(
    'select t.id from public.%I t where t.content_source_id = any ($3) and %s and %s',
    p_table, private.readable_source_condition('t.content_source_id'),
    array_to_string(conditions, ' and ')
  ) using p_all, p_any,
    coalesce(p_sources, array(select o.id from private.official_source_ids() o(id)));
end
$$;

revoke all on function private.search_matching_ids(text, text, text[], text[], bigint[]) from public;
grant execute on function private.search_matching_ids(text, text, text[], text[], bigint[])
  to functions_anon, functions_authenticated, service_role;
