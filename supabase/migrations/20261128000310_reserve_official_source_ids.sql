-- Changes rows of public.content_source: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.trait: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.item: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.spell: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.class: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.ability_block: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.ancestry: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.archetype: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.class_archetype: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.versatile_heritage: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.language: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.background: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.creature: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.hazard: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.content_update: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.character: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.campaign: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of public.public_user: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of private.content_source_unlock: a homebrew source at a reserved id moves to a new id, and so does every mention of it
-- Changes rows of private.content_source_unlock_failure: a homebrew source at a reserved id moves to a new id, and so does every mention of it
--
-- The web client names three content sources by id (frontend/src/constants/data.ts of the
-- reference): 1 is the Pathfinder core book, 3 the core content both game systems share (always
-- loaded, whatever a character enables) and 579 the Starfinder core book. Those ids belong to
-- official sources (no owner) only; homebrew never takes them.
--
-- A database made before this holds homebrew wherever the identity sequence put it, so a homebrew
-- source at a reserved id moves to a new id, with everything that names it: the content rows
-- (foreign keys, from now on `on update cascade`), characters' and campaigns' enabled lists,
-- users' subscriptions and other sources' requirements. Nothing is deleted. Copies of records a
-- character keeps in its own JSON (an inventory item's `content_source_id`) keep the old number,
-- as they keep every other field of the record as it was when copied.

create function private.official_source_reserved_ids() returns bigint[]
language sql immutable as $$
  select '{1, 3, 579}'::bigint[]
$$;
-- The constraint below calls it on every write of a source, as the writer.
grant execute on function private.official_source_reserved_ids()
  to anon, authenticated, service_role;

-- Section: references follow an id
do $$
declare
  fk record;
  caller_path constant text := current_setting('search_path');
begin
  -- With an empty search path the definitions name every table with its schema.
  perform set_config('search_path', '', true);
  for fk in
    select c.conrelid::regclass as tbl, c.conname, pg_get_constraintdef(c.oid) as def
    from pg_constraint c
    where c.contype = 'f' and c.confrelid = 'public.content_source'::regclass
      and c.confupdtype <> 'c'
  loop
    execute format('alter table %s drop constraint %I, add constraint %I %s on update cascade',
      fk.tbl, fk.conname, fk.conname, fk.def);
  end loop;
  perform set_config('search_path', caller_path, true);
end
$$;

-- Section: move homebrew off the reserved ids
create temporary table moved_source (old_id bigint primary key, new_id bigint not null)
  on commit drop;

-- New ids come after every id in use and after the reserved ones.
select setval(pg_get_serial_sequence('public.content_source', 'id'), greatest(
  (select coalesce(max(id), 0) from public.content_source),
  (select max(r) from unnest(private.official_source_reserved_ids()) r)));

insert into moved_source (old_id, new_id)
select s.id, nextval(pg_get_serial_sequence('public.content_source', 'id'))
from public.content_source s
where s.user_id is not null and s.id = any (private.official_source_reserved_ids())
order by s.id;

do $$
declare
  t text;
  tables text[] := array['public.content_source', 'public.character', 'public.campaign',
    'public.public_user'];
begin
  if not exists (select from pg_temp.moved_source) then
    return;
  end if;
  -- The move is the migration's, not a user's edit: no trigger stamps it as one (updated_at, the
  -- readable-reference checks made as the caller, linked traits). Foreign keys still cascade.
  tables := tables || array(
    select distinct c.conrelid::regclass::text from pg_constraint c
    where c.contype = 'f' and c.confrelid = 'public.content_source'::regclass);
  foreach t in array tables loop
    execute format('alter table %s disable trigger user', t);
  end loop;

  alter table public.content_source alter column id set generated by default;
  update public.content_source s set id = m.new_id from pg_temp.moved_source m
  where s.id = m.old_id;
  alter table public.content_source alter column id set generated always;

  update public.content_source s set required_content_sources = array(
    select coalesce(m.new_id, r.id) from unnest(s.required_content_sources) with ordinality r(id, n)
    left join pg_temp.moved_source m on m.old_id = r.id order by r.n)
  where s.required_content_sources && array(select old_id from pg_temp.moved_source);

  update public.character c set content_sources = jsonb_set(c.content_sources, '{enabled}', (
    select jsonb_agg(coalesce(to_jsonb(m.new_id), e.value) order by e.n)
    from jsonb_array_elements(c.content_sources -> 'enabled') with ordinality e(value, n)
    left join pg_temp.moved_source m on to_jsonb(m.old_id) = e.value))
  where jsonb_typeof(c.content_sources -> 'enabled') = 'array'
    and exists (select from pg_temp.moved_source m
      where c.content_sources -> 'enabled' @> jsonb_build_array(m.old_id));

  update public.campaign c set recommended_content_sources = jsonb_set(
    c.recommended_content_sources, '{enabled}', (
    select jsonb_agg(coalesce(to_jsonb(m.new_id), e.value) order by e.n)
    from jsonb_array_elements(c.recommended_content_sources -> 'enabled') with ordinality e(value, n)
    left join pg_temp.moved_source m on to_jsonb(m.old_id) = e.value))
  where jsonb_typeof(c.recommended_content_sources -> 'enabled') = 'array'
    and exists (select from pg_temp.moved_source m
      where c.recommended_content_sources -> 'enabled' @> jsonb_build_array(m.old_id));

  update public.public_user u set subscribed_content_sources = (
    select jsonb_agg(case when m.new_id is null then e.value
      else jsonb_set(e.value, '{source_id}', to_jsonb(m.new_id)) end order by e.n)
    from jsonb_array_elements(u.subscribed_content_sources) with ordinality e(value, n)
    left join pg_temp.moved_source m on to_jsonb(m.old_id) = e.value -> 'source_id')
  where exists (select from pg_temp.moved_source m
    where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', m.old_id)));

  foreach t in array tables loop
    execute format('alter table %s enable trigger user', t);
  end loop;
end
$$;

-- Section: constraints
alter table public.content_source add constraint content_source_reserved_ids_are_official
  check (user_id is null or id <> all (private.official_source_reserved_ids()));
