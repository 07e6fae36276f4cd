-- The source rules call no function per row. private.source_is_readable and source_is_writable
-- (content baseline) are inlined, but their bodies called private.is_admin() and
-- private.has_unlocked_source(id), both security definer PL/pgSQL, for every row whose answer
-- depended on them: a user who published many key-locked sources made every other caller's scan of
-- sources (a listing, a search, a find over many rows) pay a call per such source, and a write over
-- official rows paid one per row. The caller's questions are now passed in: whether the caller is
-- an admin, asked once per statement (`(select private.is_admin())`), and whether the caller
-- unlocked the row's source, looked up by primary key among the caller's own unlocks as the source
-- itself is. Who may read or write what is unchanged.
--
-- private.provision_content_table, the one call that makes a new content type's parts, wrote the
-- old rules and granted the table to `anon` and `authenticated`, the Data API's roles, whose grants
-- the function roles migration had moved: a type added by it would have been open to the Data API.
-- It now makes the policies with the rules above and leaves the Data API's roles nothing.

-- Section: helpers
-- The read rule, on one source's columns and the caller's answers: published official sources,
-- admins also unpublished ones; the caller's own sources; another user's published source unless
-- it needs an access key the caller has not entered. Plain SQL without settings, so the planner
-- inlines it, and each answer is evaluated only where the rule needs it.
create function private.source_readable_by(
  p_owner uuid,
  p_is_published boolean,
  p_require_key boolean,
  p_caller uuid,
  p_caller_is_admin boolean,
  p_caller_unlocked boolean
) returns boolean
language sql stable as $$
  select (p_owner is null and (p_is_published or p_caller_is_admin))
    or p_owner = p_caller
    or (p_is_published and (not p_require_key or p_caller_unlocked))
$$;

-- The write rule: the caller's own sources; official sources only for admins. Inlined as above.
create function private.source_writable_by(p_owner uuid, p_caller uuid, p_caller_is_admin boolean)
returns boolean
language sql stable as $$
  select p_owner = p_caller or (p_owner is null and p_caller_is_admin)
$$;

-- The two rules asking the caller's questions themselves, for statements about a source or two
-- (private.can_read_source, can_write_source, the search's list of sources), where a call per
-- source is the statement's cost anyway.
create or replace function private.source_is_readable(
  p_source_id bigint,
  p_owner uuid,
  p_is_published boolean,
  p_require_key boolean,
  p_caller uuid
) returns boolean
language sql stable as $$
  select private.source_readable_by(p_owner, p_is_published, p_require_key, p_caller,
    private.is_admin(), private.has_unlocked_source(p_source_id))
$$;

create or replace function private.source_is_writable(p_owner uuid, p_caller uuid)
returns boolean
language sql stable as $$
  select private.source_writable_by(p_owner, p_caller, private.is_admin())
$$;

-- The rules on the source row `p_row` (a table name or an alias, as SQL text) for policies: the
-- caller's questions asked once per statement, the unlock looked up by primary key.
create function private.readable_source_row(p_row text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'private.source_readable_by(%1$s.user_id, %1$s.is_published, %1$s.require_key,
       (select auth.uid()), (select private.is_admin()),
       exists (select 1 from private.content_source_unlock u
         where u.user_id = (select auth.uid()) and u.content_source_id = %1$s.id))',
    p_row)
$$;

create function private.writable_source_row(p_row text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'private.source_writable_by(%s.user_id, (select auth.uid()), (select private.is_admin()))',
    p_row)
$$;

-- "The source whose id is <p_source_id> is one the caller may read", as before, by the rule above.
create or replace function private.readable_source_condition(p_source_id text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'exists (select 1 from public.content_source s where s.id = %s and %s)',
    p_source_id, private.readable_source_row('s'))
$$;

-- The same for writing.
create function private.writable_source_condition(p_source_id text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'exists (select 1 from public.content_source s where s.id = %s and %s)',
    p_source_id, private.writable_source_row('s'))
$$;

-- The four policies of a content table (`p_table`, from private.content_table): who may read or
-- write a record is who may read or write its own source.
create function private.make_content_policies(p_table text) returns void
language plpgsql volatile set search_path = '' as $$
declare
  readable constant text :=
    private.readable_source_condition(format('%I.content_source_id', p_table));
  writable constant text :=
    private.writable_source_condition(format('%I.content_source_id', p_table));
begin
  if not exists (select from private.content_table c where c.name = p_table) then
    raise exception 'Invalid value: % is not listed in private.content_table', p_table;
  end if;
  execute format('drop policy if exists "Content of readable sources can be read" on public.%I',
    p_table);
  execute format(
    'create policy "Content of readable sources can be read" on public.%I
       for select to authenticated, anon using (%s)', p_table, readable);
  execute format('drop policy if exists "Content can be added to writable sources" on public.%I',
    p_table);
  execute format(
    'create policy "Content can be added to writable sources" on public.%I
       for insert to authenticated with check (%s)', p_table, writable);
  execute format('drop policy if exists "Content of writable sources can be edited" on public.%I',
    p_table);
  execute format(
    'create policy "Content of writable sources can be edited" on public.%I
       for update to authenticated using (%2$s) with check (%2$s)', p_table, writable);
  execute format('drop policy if exists "Content of writable sources can be deleted" on public.%I',
    p_table);
  execute format(
    'create policy "Content of writable sources can be deleted" on public.%I
       for delete to authenticated using (%s)', p_table, writable);
end
$$;

-- Moves whatever the Data API's roles hold in the project's schemas to the function roles, with
-- its grant option, as the function roles migration did once.
create function private.move_data_api_grants() returns void
language plpgsql volatile set search_path = '' as $$
declare
  held record;
begin
  for held in
    select * from private.data_api_role_privileges() p where p.grantee <> 'public'
  loop
    execute pg_catalog.format('grant %s%s on %s %s to %I%s',
      held.privilege, coalesce(' (' || pg_catalog.quote_ident(held.column_name) || ')', ''),
      held.object_kind, held.object_name, 'functions_' || held.grantee,
      case when held.grantable then ' with grant option' else '' end);
    execute pg_catalog.format('revoke %s%s on %s %s from %I',
      held.privilege, coalesce(' (' || pg_catalog.quote_ident(held.column_name) || ')', ''),
      held.object_kind, held.object_name, held.grantee);
  end loop;
end
$$;

-- A new content type is still its table, its row of private.content_table and this one call. The
-- content baseline's version makes the parts, then its policies and grants are made as above.
alter function private.provision_content_table(text) rename to provision_content_table_parts;
create function private.provision_content_table(p_table text) returns void
language plpgsql volatile set search_path = '' as $$
begin
  perform private.provision_content_table_parts(p_table);
  perform private.make_content_policies(p_table);
  perform private.move_data_api_grants();
end
$$;

-- Section: policies
-- Callers read their own unlocks: the read rule looks up the row's source among them.
create policy "Users read their own unlocks" on private.content_source_unlock
  for select to authenticated, anon
  using (user_id = (select auth.uid()));

-- The policies that named the rules, made again with them (same names, roles and commands).
do $$
declare
  source_writable constant text := private.writable_source_row('content_source');
  proposal constant text := private.readable_source_condition('content_update.content_source_id');
begin
  drop policy "Readable sources can be read" on public.content_source;
  execute format(
    'create policy "Readable sources can be read" on public.content_source
       for select to authenticated, anon using (%s)',
    private.readable_source_row('content_source'));
  drop policy "Owners can edit their sources, admins official ones" on public.content_source;
  execute format(
    'create policy "Owners can edit their sources, admins official ones" on public.content_source
       for update to authenticated using (%1$s) with check (%1$s)', source_writable);
  drop policy "Owners can delete their sources, admins official ones" on public.content_source;
  execute format(
    'create policy "Owners can delete their sources, admins official ones"
       on public.content_source for delete to authenticated using (%s)', source_writable);

  perform private.make_content_policies(c.name) from private.content_table c;

  drop policy "Proposals can be read by their author and by readers of their source"
    on public.content_update;
  execute format(
    'create policy "Proposals can be read by their author and by readers of their source"
       on public.content_update for select to authenticated, anon
       using (user_id = (select auth.uid()) or %s)', proposal);
  drop policy "Signed-in users can propose changes to sources they can read"
    on public.content_update;
  execute format(
    'create policy "Signed-in users can propose changes to sources they can read"
       on public.content_update for insert to authenticated
       with check (user_id = (select auth.uid()) and %s)', proposal);
end
$$;

-- Section: grants
-- As the rules' other helpers: the request roles call them, the Data API's roles do not.
grant execute on function
  private.source_readable_by(uuid, boolean, boolean, uuid, boolean, boolean),
  private.source_writable_by(uuid, uuid, boolean)
  to functions_anon, functions_authenticated, service_role;
grant select on private.content_source_unlock to functions_anon, functions_authenticated;
