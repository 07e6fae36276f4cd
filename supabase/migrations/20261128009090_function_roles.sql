-- The Edge Functions are the only door to the project's data. On a hosted project the Data API
-- (REST at /rest/v1, GraphQL) switches to `anon` and `authenticated`, so whatever those roles hold
-- is open to anyone with the publishable key, past the functions' validation, limits and
-- idempotency. Here the functions get roles of their own, `functions_anon` and
-- `functions_authenticated`, which hold every privilege the project grants its callers; `anon` and
-- `authenticated` keep none on the project's objects. Each new role is an INHERIT member of its
-- platform role, so auth.uid(), the platform's own grants and the policies written `to anon` or
-- `to authenticated` apply to it unchanged. Only the functions' login role, api_authenticator,
-- may switch to them: they are never granted to the platform's `authenticator`, so no Data API
-- request can become them, whatever the project exposes.
--
-- The move is generic: every privilege `anon` or `authenticated` holds on an object of the
-- project's schemas (tables, views, columns, sequences, functions, types, schemas) is granted to
-- the matching function role and revoked from the platform role, so grants written the old way in
-- migrations before this one are covered. private.data_api_role_privileges() lists what is left;
-- a test requires it to be empty, which holds later migrations to the same rule.

-- Section: setup
-- Roles belong to the cluster: several databases (and concurrent migrations) share them, so an
-- existing one is kept, with the attributes this file relies on.
do $$
begin
  if not exists (select from pg_roles where rolname = 'functions_anon') then
    create role functions_anon nologin inherit nosuperuser nocreatedb nocreaterole nobypassrls
      noreplication;
  end if;
exception when duplicate_object or unique_violation then
  null; -- a concurrent migration created it first
end
$$;
do $$
begin
  if not exists (select from pg_roles where rolname = 'functions_authenticated') then
    create role functions_authenticated nologin inherit nosuperuser nocreatedb nocreaterole
      nobypassrls noreplication;
  end if;
exception when duplicate_object or unique_violation then
  null;
end
$$;
-- Altered only when they differ: an unconditional ALTER ROLE rewrites the shared catalog row, and
-- two databases migrating at once then fail with "tuple concurrently updated".
do $$
begin
  if exists (select from pg_roles where rolname = 'functions_anon'
             and (rolcanlogin or not rolinherit)) then
    alter role functions_anon nologin inherit;
  end if;
  if exists (select from pg_roles where rolname = 'functions_authenticated'
             and (rolcanlogin or not rolinherit)) then
    alter role functions_authenticated nologin inherit;
  end if;
end
$$;

grant anon to functions_anon;
grant authenticated to functions_authenticated;
-- The functions' login role switches to the function roles (and service_role): the request
-- openers below accept no other. It stays a member of anon and authenticated (the platform
-- baseline's grant; roles are shared by every database of the cluster, and a database migrated
-- to an earlier version still switches to them), which hold nothing of the project.
grant functions_anon, functions_authenticated to api_authenticator;
-- The migrating role may act as them, as the platform lets it act as anon and authenticated: the
-- owner's tools and tests play a caller that way.
grant functions_anon, functions_authenticated to current_user;

-- Section: helpers
-- The project's schemas: every schema but the catalogs and the platform's own (Auth, Storage,
-- extensions, the migration history and the other services a hosted project runs).
create function private.project_schemas() returns setof pg_catalog.regnamespace
language sql stable set search_path = '' as $$
  select n.oid::pg_catalog.regnamespace from pg_catalog.pg_namespace n
  where n.nspname not like 'pg\_%' and n.nspname not in (
    'information_schema', 'auth', 'extensions', 'storage', 'graphql', 'graphql_public',
    'realtime', '_realtime', '_analytics', 'vault', 'pgbouncer', 'pgsodium', 'pgsodium_masks',
    'net', 'cron', 'supabase_functions', 'supabase_migrations'
  )
$$;

-- Every privilege the Data API's roles hold on an object of the project, directly or through
-- PUBLIC (an object's default privileges included: a function nobody revoked is callable by
-- PUBLIC). Objects that belong to an extension are the extension's. Usage on `public` is the
-- platform's grant, and opens nothing while nothing in it is granted. `object_kind` and
-- `object_name` are written as GRANT takes them.
create function private.data_api_role_privileges()
returns table (
  object_kind text, object_name text, column_name text, grantee text, privilege text,
  grantable boolean
)
language sql stable set search_path = '' as $$
  with project_schema as (
    select n.oid, n.nspname from pg_catalog.pg_namespace n
    where n.oid in (select private.project_schemas())
  ),
  data_api_role as (
    select r.oid, r.rolname::text as name from pg_catalog.pg_roles r
    where r.rolname in ('anon', 'authenticated')
    union all
    select 0, 'public'
  ),
  extension_member as (
    select d.classid, d.objid from pg_catalog.pg_depend d where d.deptype = 'e'
  ),
  held (object_kind, object_name, column_name, acl) as (
    select case when c.relkind = 'S' then 'sequence' else 'table' end,
      pg_catalog.format('%I.%I', s.nspname, c.relname), null::text, c.relacl
    from pg_catalog.pg_class c join project_schema s on s.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and not exists (select from extension_member m
        where m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass and m.objid = c.oid)
    union all
    select 'table', pg_catalog.format('%I.%I', s.nspname, c.relname), a.attname::text, a.attacl
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join project_schema s on s.oid = c.relnamespace
    where a.attacl is not null and a.attnum > 0 and not a.attisdropped
      and not exists (select from extension_member m
        where m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass and m.objid = c.oid)
    union all
    select 'routine', p.oid::pg_catalog.regprocedure::text, null,
      coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))
    from pg_catalog.pg_proc p join project_schema s on s.oid = p.pronamespace
    where not exists (select from extension_member m
        where m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass and m.objid = p.oid)
    union all
    select 'type', p.oid::pg_catalog.regtype::text, null, p.typacl
    from pg_catalog.pg_type p join project_schema s on s.oid = p.typnamespace
    where p.typacl is not null
      and not exists (select from extension_member m
        where m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass and m.objid = p.oid)
    union all
    select 'schema', pg_catalog.quote_ident(s.nspname), null, n.nspacl
    from pg_catalog.pg_namespace n join project_schema s on s.oid = n.oid
    where s.nspname <> 'public'
  )
  select h.object_kind, h.object_name, h.column_name, r.name, e.privilege_type, e.is_grantable
  from held h
  cross join lateral pg_catalog.aclexplode(h.acl) e
  join data_api_role r on r.oid = e.grantee
  -- A type is usable by PUBLIC unless revoked, as everywhere in Postgres: that opens no data.
  where not (h.object_kind = 'type' and r.name = 'public')
  order by 1, 2, 3, 4, 5
$$;

-- The request openers of the accounts baseline, switching to the function roles: a caller known
-- from a verified token (or no caller) runs as functions_authenticated (functions_anon), the
-- service key as service_role, an API key as functions_authenticated.
create or replace function private.begin_request(p_role text, p_claims text) returns void
language plpgsql volatile set search_path = '' as $$
declare
  deactivated boolean;
begin
  if p_role is null
    or p_role not in ('functions_anon', 'functions_authenticated', 'service_role') then
    raise exception 'Unknown request role: %', p_role;
  end if;
  if p_role = 'functions_authenticated' then
    deactivated := private.account_deactivated((p_claims::json ->> 'sub')::uuid);
    if deactivated is null then
      raise exception 'User not found: the account behind this token no longer exists'
        using errcode = 'PT401';
    end if;
    if deactivated then
      raise exception 'Account deactivated: this account can no longer use the API'
        using errcode = 'PT403';
    end if;
  end if;
  perform set_config('request.jwt.claims', coalesce(p_claims, '{}'), true),
    set_config('role', p_role, true);
end
$$;

create or replace function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile set search_path = '' as $$
declare
  claims constant text := private.resolve_api_key(p_key_hash, p_character_id);
begin
  perform set_config('request.jwt.claims', claims, true),
    set_config('role', 'functions_authenticated', true);
  return claims;
end
$$;

-- Section: grants
-- What `anon` and `authenticated` hold moves to the function roles, with its grant option.
do $$
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

-- Objects the migrating role creates from here on are granted to nobody by default, in `public`
-- (where a hosted project grants everything to the API roles) and everywhere: the platform
-- baseline took Supabase's defaults back, and this holds whatever migration ran in between.
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;
alter default privileges in schema public revoke all on functions from anon, authenticated;
alter default privileges revoke all on tables from anon, authenticated;
alter default privileges revoke all on sequences from anon, authenticated;
alter default privileges revoke all on functions from anon, authenticated;
alter default privileges revoke execute on functions from public;
