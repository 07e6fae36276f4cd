-- Who may read and write reference content, the access-key unlock, the homebrew tier cap, and the
-- updated_at bookkeeping. The read and write rules are written once, as helpers, and every content
-- table's policies call them.

-- Section: tables
-- A user who entered a key-locked source's access key. Lives in `private`: only the helpers below
-- read or write it.
create table private.content_source_unlock (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  unlocked_at timestamptz not null default now(),
  primary key (user_id, content_source_id)
);
create index content_source_unlock_source_idx on private.content_source_unlock (content_source_id);
alter table private.content_source_unlock enable row level security;

-- Section: grants
-- `keys` (the access key) is left out of select: its owner reads it through private.my_source_keys().
-- `user_id` is set by a trigger; ids and timestamps are never written by callers.
grant select (id, name, url, created_at, updated_at, external_id, description, operations, user_id,
  contact_info, require_key, is_published, required_content_sources, "group", artwork_url,
  meta_data) on public.content_source to authenticated;
grant insert (name, url, external_id, description, operations, contact_info, require_key, keys,
  is_published, required_content_sources, "group", artwork_url, meta_data)
  on public.content_source to authenticated;
grant update (name, url, external_id, description, operations, contact_info, require_key, keys,
  is_published, required_content_sources, "group", artwork_url, meta_data)
  on public.content_source to authenticated;
grant delete on public.content_source to authenticated;

-- Every content table: read all columns; insert all but id and timestamps; update those minus
-- content_source_id (content never moves between sources); delete. Generated from the table list
-- so the thirteen tables cannot drift apart.
do $$
declare
  t text;
  insertable text;
  updatable text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    select string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position)
      filter (where c.column_name not in ('id', 'created_at', 'updated_at')),
      string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position)
      filter (where c.column_name not in ('id', 'created_at', 'updated_at', 'content_source_id'))
    into insertable, updatable
    from information_schema.columns c
    where c.table_schema = 'public' and c.table_name = t;
    execute format('grant select, delete on public.%I to authenticated', t);
    execute format('grant insert (%s) on public.%I to authenticated', insertable, t);
    execute format('grant update (%s) on public.%I to authenticated', updatable, t);
  end loop;
end
$$;

-- Section: helpers
-- The read rule, in one place: published official sources; the caller's own sources, published or
-- not; another user's published source unless it needs an access key the caller has not entered.
-- Admins also see unpublished official sources (they maintain them). Security definer so the
-- policies of content_source and the unlock table do not recurse. Set-returning, so a policy
-- evaluates it once per statement rather than once per row.
create function private.readable_source_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select s.id from public.content_source s
  where (s.user_id is null and (s.is_published or (select private.is_admin())))
    or s.user_id = (select auth.uid())
    or (
      s.is_published and (
        not s.require_key
        or exists (
          select 1 from private.content_source_unlock u
          where u.content_source_id = s.id and u.user_id = (select auth.uid())
        )
      )
    )
$$;
grant execute on function private.readable_source_ids() to authenticated, service_role;

-- The write rule: the caller's own sources; official sources only for admins.
create function private.writable_source_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select s.id from public.content_source s
  where s.user_id = (select auth.uid())
    or (s.user_id is null and (select private.is_admin()))
$$;
grant execute on function private.writable_source_ids() to authenticated, service_role;

create function private.can_read_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select p_source_id in (select private.readable_source_ids())
$$;
grant execute on function private.can_read_source(bigint) to authenticated, service_role;

create function private.can_write_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select p_source_id in (select private.writable_source_ids())
$$;
grant execute on function private.can_write_source(bigint) to authenticated, service_role;

-- The access keys of the sources the caller may write: the only way `keys` is read.
create function private.my_source_keys() returns table (content_source_id bigint, keys jsonb)
language sql stable security definer set search_path = '' as $$
  select s.id, s.keys from public.content_source s
  where s.id in (select private.writable_source_ids())
$$;
grant execute on function private.my_source_keys() to authenticated, service_role;

-- Enters an access key: on a match the caller may read that source from now on. Security definer
-- because it compares against `keys`, which callers cannot read; the checks here are all it allows.
create function private.unlock_content_source(p_source_id bigint, p_access_key text)
returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  src public.content_source;
begin
  if (select auth.uid()) is null then
    raise exception 'User not found';
  end if;
  select * into src from public.content_source s
  where s.id = p_source_id and (s.is_published or s.user_id = (select auth.uid()));
  if not found then
    raise exception 'Content source not found';
  end if;
  if not src.require_key or src.user_id is not distinct from (select auth.uid()) then
    return;
  end if;
  if coalesce(src.keys ->> 'access_key', '') = '' or src.keys ->> 'access_key' <> p_access_key then
    raise exception 'Invalid access key';
  end if;
  insert into private.content_source_unlock (user_id, content_source_id)
  values ((select auth.uid()), p_source_id)
  on conflict do nothing;
end
$$;
grant execute on function private.unlock_content_source(bigint, text) to authenticated;

-- Section: triggers
-- A new source always belongs to its creator, and a homebrew source needs supporter tier 2 (admins
-- are exempt). Rows inserted with no signed-in user (seed, maintenance) keep the owner they name.
create function private.claim_new_content_source() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is null then
    return new;
  end if;
  new.user_id := (select auth.uid());
  -- Lock the owner's row so a concurrent tier change cannot slip between check and insert.
  perform 1 from public.public_user u where u.user_id = new.user_id for update;
  if (select private.supporter_tier()) < 2 and not (select private.is_admin()) then
    raise exception 'User does not have access: creating a homebrew content source requires supporter tier 2 or higher'
      using detail = '{"required_tier": 2}';
  end if;
  return new;
end
$$;

create trigger claim_new_content_source before insert on public.content_source
  for each row execute function private.claim_new_content_source();

-- updated_at moves only when something really changed, so clients can poll it.
create function private.touch_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new is distinct from old then
    new.updated_at := now();
  else
    new.updated_at := old.updated_at;
  end if;
  return new;
end
$$;

-- Any change to a content row bumps its source, so polling sources detects content changes.
-- Security definer: the writer may not update the source's updated_at column itself.
create function private.bump_content_source() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.content_source set updated_at = now()
  where id in (
    select (case when tg_op = 'DELETE' then old.content_source_id else new.content_source_id end)
  ) and updated_at < now();
  return null;
end
$$;

create trigger touch_updated_at before update on public.content_source
  for each row execute function private.touch_updated_at();

do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    execute format(
      'create trigger touch_updated_at before update on public.%I
         for each row execute function private.touch_updated_at()', t);
    execute format(
      'create trigger bump_content_source after insert or delete on public.%I
         for each row execute function private.bump_content_source()', t);
    execute format(
      'create trigger bump_content_source_on_edit after update on public.%I
         for each row when (old.* is distinct from new.*)
         execute function private.bump_content_source()', t);
  end loop;
end
$$;

-- Section: policies
create policy "Readable sources can be read" on public.content_source
  for select to authenticated using (id in (select private.readable_source_ids()));

create policy "Signed-in users can create sources they own" on public.content_source
  for insert to authenticated with check (user_id = (select auth.uid()));

create policy "Owners can edit their sources, admins official ones" on public.content_source
  for update to authenticated using (id in (select private.writable_source_ids()))
  with check (id in (select private.writable_source_ids()));

create policy "Owners can delete their sources, admins official ones" on public.content_source
  for delete to authenticated using (id in (select private.writable_source_ids()));

-- The same four sentences on every content table, generated so they cannot drift apart.
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    execute format(
      'create policy "Content of readable sources can be read" on public.%I
         for select to authenticated
         using (content_source_id in (select private.readable_source_ids()))', t);
    execute format(
      'create policy "Content can be added to writable sources" on public.%I
         for insert to authenticated
         with check (content_source_id in (select private.writable_source_ids()))', t);
    execute format(
      'create policy "Content of writable sources can be edited" on public.%I
         for update to authenticated
         using (content_source_id in (select private.writable_source_ids()))
         with check (content_source_id in (select private.writable_source_ids()))', t);
    execute format(
      'create policy "Content of writable sources can be deleted" on public.%I
         for delete to authenticated
         using (content_source_id in (select private.writable_source_ids()))', t);
  end loop;
end
$$;
