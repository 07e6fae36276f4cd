-- The database of a new hosted Supabase project as far as this project depends on it, written
-- from the facts of the public supabase/postgres repository (its init scripts, migrations and the
-- expected role dumps of its tests; docs/deploy.md names the files) for Postgres 15. Run once by
-- the bootstrap superuser `supabase_admin` on an empty cluster; the project's migrations then run
-- as `postgres`, which on the platform is no superuser.

-- Roles and their attributes (end state after the platform's migrations).
alter role supabase_admin with superuser createdb createrole replication bypassrls;
create role postgres with login nosuperuser createdb createrole replication bypassrls inherit;
alter database postgres owner to postgres;
create role anon nologin inherit;
create role authenticated nologin inherit;
create role service_role nologin inherit bypassrls;
create role authenticator with login noinherit;
create role supabase_auth_admin with login noinherit nocreaterole noreplication;
create role supabase_storage_admin with login noinherit createrole noreplication;
create role dashboard_user with nologin createdb createrole replication;

grant anon, authenticated, service_role to authenticator;
-- Without admin option on Postgres 15 (16 and later add it: see docs/deploy.md).
grant anon, authenticated, service_role to postgres;
grant supabase_storage_admin to authenticator;

alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
alter role authenticator set lock_timeout = '8s';
alter role postgres set search_path = "$user", public, extensions;

-- Extensions live in their own schema, owned by postgres.
create schema extensions authorization postgres;
create extension "uuid-ossp" with schema extensions;
create extension pgcrypto with schema extensions;
grant usage on schema extensions to postgres, anon, authenticated, service_role, supabase_storage_admin;
grant all on schema extensions to dashboard_user;
alter default privileges for role supabase_admin in schema extensions
  grant all on tables to postgres with grant option;
alter default privileges for role supabase_admin in schema extensions
  grant all on sequences to postgres with grant option;
alter default privileges for role supabase_admin in schema extensions
  grant all on routines to postgres with grant option;
grant all on all routines in schema extensions to postgres with grant option;

-- The public schema: usage for the API roles, and everything created there, by postgres or by
-- supabase_admin, handed to anon, authenticated and service_role in full.
grant usage on schema public to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public
  grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public
  grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public
  grant all on functions to postgres, anon, authenticated, service_role;

-- Auth: the schema belongs to supabase_admin, its tables and functions to supabase_auth_admin
-- (Auth's own migrations run as that role); postgres may read and write the tables but not create
-- in the schema.
create schema auth authorization supabase_admin;
grant all on schema auth to supabase_auth_admin, dashboard_user;
grant usage on schema auth to postgres, anon, authenticated, service_role;
set role supabase_auth_admin;
alter default privileges for role supabase_auth_admin in schema auth
  grant all on tables to postgres, dashboard_user;
alter default privileges for role supabase_auth_admin in schema auth
  grant all on sequences to postgres, dashboard_user;
alter default privileges for role supabase_auth_admin in schema auth
  grant all on routines to postgres, dashboard_user;

create table auth.users (
  instance_id uuid,
  id uuid not null primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
create unique index users_email_partial_key on auth.users (email) where (is_sso_user = false);
create index users_instance_id_idx on auth.users (instance_id);
alter table auth.users enable row level security;

create function auth.uid() returns uuid language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;
create function auth.role() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;
create function auth.email() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;
create function auth.jwt() returns jsonb language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;
reset role;

-- Storage: the schema belongs to supabase_admin, its tables to supabase_storage_admin; the API
-- roles have every privilege on the tables (row-level security is the gate) and postgres manages
-- them with grant option.
create schema storage authorization supabase_admin;
grant all on schema storage to supabase_storage_admin with grant option;
grant usage on schema storage to postgres with grant option;
grant usage on schema storage to anon, authenticated, service_role;
set role supabase_storage_admin;
alter default privileges for role supabase_storage_admin in schema storage
  grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage
  grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage
  grant all on functions to postgres, anon, authenticated, service_role;
create table storage.buckets (
  id text not null primary key,
  name text not null,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  owner_id text
);
create unique index bname on storage.buckets (name);
create table storage.objects (
  id uuid not null default extensions.uuid_generate_v4() primary key,
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  version text,
  owner_id text,
  user_metadata jsonb,
  unique (bucket_id, name)
);
alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
reset role;
grant all on storage.buckets, storage.objects to postgres with grant option;
