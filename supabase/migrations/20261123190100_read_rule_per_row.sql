-- Who may read a source, decided on that one source's row instead of on the set of every source
-- the caller may read. The rule is unchanged (content baseline): published official sources;
-- the caller's own sources, published or not; another user's published source unless it needs an
-- access key the caller has not entered; admins also unpublished official sources. Before, every
-- read policy built the whole readable set (private.readable_source_ids()) once per statement, so
-- finding one spell cost as much as there were sources: with 50,000 homebrew sources a find by id
-- was five times slower. Now a read looks up its row's one source by primary key and decides
-- there, whatever the number of sources, and the set-returning helper is gone. The write rule
-- (the caller's own sources; official ones for admins) moves the same way, off
-- private.writable_source_ids().

-- Section: helpers
-- Whether the caller entered the access key of a source. Security definer: the unlock table is
-- read by these helpers only. One primary-key lookup. Cost 1 (as private.is_admin() below): the
-- rule calls each only for the rare rows whose answer depends on it, but the planner charges a
-- function's cost on every row, and the default (100) made a policy-filtered scan of a few
-- thousand rows look expensive enough to be JIT-compiled, which costs more than the scan.
create function private.has_unlocked_source(p_source_id bigint) returns boolean
language plpgsql stable security definer set search_path = '' cost 1 as $$
begin
  return exists (
    select 1 from private.content_source_unlock u
    where u.user_id = (select auth.uid()) and u.content_source_id = p_source_id
  );
end
$$;

alter function private.is_admin() cost 1;

-- The read rule on one source's columns, for a caller (pass `(select auth.uid())`, which the
-- planner evaluates once per statement rather than once per row). Plain SQL with invoker rights
-- and no `set search_path` (every name is qualified) so the planner inlines it: a policy or
-- query that calls it is planned as if it held the expression itself, and the two helpers are
-- called only for the rows whose answer depends on them (unpublished official, key-locked).
-- It reads no table: a caller passing another user's id learns nothing the columns did not say.
create function private.source_is_readable(
  p_source_id bigint,
  p_owner uuid,
  p_is_published boolean,
  p_require_key boolean,
  p_caller uuid
) returns boolean
language sql stable as $$
  select (p_owner is null and (p_is_published or private.is_admin()))
    or p_owner = p_caller
    or (p_is_published and (not p_require_key or private.has_unlocked_source(p_source_id)))
$$;

-- The write rule on one source's owner, for a caller passed as above; inlined the same way.
create function private.source_is_writable(p_owner uuid, p_caller uuid) returns boolean
language sql stable as $$
  select p_owner = p_caller or (p_owner is null and private.is_admin())
$$;

-- Whether the caller may read one source: one primary-key lookup.
create or replace function private.can_read_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select exists (
    select 1 from public.content_source s
    where s.id = p_source_id
      and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
        (select auth.uid()))
  )
$$;

-- Whether the caller may write one source: one primary-key lookup.
create or replace function private.can_write_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select exists (
    select 1 from public.content_source s
    where s.id = p_source_id and private.source_is_writable(s.user_id, (select auth.uid()))
  )
$$;

-- The access keys of the sources the caller may write: the only way `keys` is read. The owner's
-- rows come from the owner index; an admin's official rows from the same index (null owner).
create or replace function private.my_source_keys() returns table (content_source_id bigint, keys jsonb)
language sql stable security definer set search_path = '' as $$
  select s.id, s.keys from public.content_source s
  where s.user_id = (select auth.uid())
  union all
  select s.id, s.keys from public.content_source s
  where s.user_id is null and (select private.is_admin())
$$;

-- Section: policies
alter policy "Readable sources can be read" on public.content_source
  using (private.source_is_readable(id, user_id, is_published, require_key, (select auth.uid())));

-- Every content table: a record is readable when its own source is, checked on that source's row.
-- The rule is spelled out rather than left to content_source's policy, so widening who may see a
-- source's row (a listing of names, say) can never widen who reads its content.
do $$
declare
  t text;
begin
  for t in select c.name from private.content_table c order by c.name
  loop
    execute format(
      'alter policy "Content of readable sources can be read" on public.%1$I
         using (exists (
           select 1 from public.content_source s
           where s.id = %1$I.content_source_id
             and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
               (select auth.uid()))))', t);
  end loop;
end
$$;

alter policy "Owners can edit their sources, admins official ones" on public.content_source
  using (private.source_is_writable(user_id, (select auth.uid())))
  with check (private.source_is_writable(user_id, (select auth.uid())));

alter policy "Owners can delete their sources, admins official ones" on public.content_source
  using (private.source_is_writable(user_id, (select auth.uid())));

-- Every content table's writes, checked on the row's own source likewise. The lookup of that
-- source runs under content_source's read policy too, which every writable source passes.
do $$
declare
  t text;
  writable text;
begin
  for t in select c.name from private.content_table c order by c.name
  loop
    writable := format(
      'exists (select 1 from public.content_source s where s.id = %I.content_source_id
         and private.source_is_writable(s.user_id, (select auth.uid())))', t);
    execute format(
      'alter policy "Content can be added to writable sources" on public.%I with check (%s)',
      t, writable);
    execute format(
      'alter policy "Content of writable sources can be edited" on public.%I
         using (%s) with check (%s)', t, writable, writable);
    execute format(
      'alter policy "Content of writable sources can be deleted" on public.%I using (%s)',
      t, writable);
  end loop;
end
$$;

alter policy "Proposals can be read by their author and by readers of their source"
  on public.content_update
  using (
    user_id = (select auth.uid())
    or exists (
      select 1 from public.content_source s
      where s.id = content_update.content_source_id
        and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
          (select auth.uid()))
    )
  );

alter policy "Signed-in users can propose changes to sources they can read"
  on public.content_update
  with check (
    user_id = (select auth.uid())
    and exists (
      select 1 from public.content_source s
      where s.id = content_update.content_source_id
        and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
          (select auth.uid()))
    )
  );

-- Section: search and statistics
-- Advanced mode's contains-matches (search baseline), each match checked on its own source.
create or replace function private.search_matching_ids(
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

-- Simple mode (search baseline, official default from 20261123153700). The sources searched are
-- the official published ones, readable by everyone, or those of the given ones the caller may
-- read, each checked on its own row: never the set of every readable source.
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

-- The subscriber count of a source the caller may read; 0 for any other id.
create or replace function private.content_source_subscriber_count(p_source_id bigint)
returns bigint
language sql stable security definer set search_path = '' as $$
  select count(*) from public.public_user u
  where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', p_source_id))
    and exists (
      select 1 from public.content_source s
      where s.id = p_source_id
        and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
          (select auth.uid()))
    )
$$;

-- Section: cleanup
-- Nothing calls them any more; dropping them keeps them from coming back into a policy.
drop function private.readable_source_ids();
drop function private.writable_source_ids();

-- Section: grants
-- Every role whose statements the read policies check runs the rule (the planner inlines a
-- function only for a caller allowed to execute it).
grant execute on function private.source_is_readable(bigint, uuid, boolean, boolean, uuid)
  to anon, authenticated, service_role;
grant execute on function private.has_unlocked_source(bigint) to anon, authenticated, service_role;
grant execute on function private.source_is_writable(uuid, uuid)
  to anon, authenticated, service_role;
