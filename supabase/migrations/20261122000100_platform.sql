-- Platform: what every other baseline builds on. The default privileges (no function is callable
-- until granted), the `private` schema for helpers and tables the API never exposes, the trigram
-- extension, the role requests connect as, and the helpers that say who is calling.
--
-- The baselines (this file, then accounts, content, play, moderation, search) each follow one
-- section order: setup, tables, indexes, helpers, policies, triggers, grants. Until the first
-- release, changes edit these files in place; from the first release on, changes are new
-- migrations. docs/architecture.md says which file holds what.

-- Section: setup
-- A hosted project may grant everything in `public` to the API roles, now and by default ("default
-- privileges for new entities", on for projects created before mid-2026), which would make every
-- column grant of these baselines meaningless: a signed-in user could set their own is_admin. All
-- of it is taken back first, for objects that exist and for objects created from here on (by the
-- role running the migrations, in `public` and everywhere); each baseline's grants section then
-- grants exactly what is needed. scripts/server/local_bootstrap.sql reproduces those defaults locally.
revoke all on all tables in schema public from anon, authenticated, service_role;
revoke all on all sequences in schema public from anon, authenticated, service_role;
revoke all on all functions in schema public from anon, authenticated, service_role;
alter default privileges in schema public
  revoke all on tables from anon, authenticated, service_role;
alter default privileges in schema public
  revoke all on sequences from anon, authenticated, service_role;
alter default privileges in schema public
  revoke all on functions from anon, authenticated, service_role;
alter default privileges revoke all on tables from anon, authenticated, service_role;
alter default privileges revoke all on sequences from anon, authenticated, service_role;
alter default privileges revoke all on functions from anon, authenticated, service_role;
-- Functions are not callable by everyone by default; each one is granted in its file's grants.
alter default privileges revoke execute on functions from public;
create schema if not exists private;

-- Supabase keeps extensions in their own schema; plain Postgres and PGlite follow the same layout
-- (the local bootstrap creates the schema). Callers use the operators schema-qualified.
create extension if not exists pg_trgm with schema extensions;

-- The role requests connect as. As PostgREST's `authenticator`: a login role that is only a member
-- of the request roles, does not inherit their privileges (NOINHERIT), owns nothing and holds no
-- table privilege, so a request that has not switched to its role can read nothing; it may only
-- call the request openers (accounts baseline), each of which switches role as its last step.
-- Roles belong to the cluster, not the database: several databases (and concurrent migrations)
-- share it, so an existing one is kept. It is created without a password: on a hosted project the
-- operator sets one (`alter role api_authenticator with password '...'`) and gives it to the
-- functions as API_AUTHENTICATOR_PASSWORD; a local Postgres that trusts local connections needs
-- none.
do $$
begin
  if not exists (select from pg_roles where rolname = 'api_authenticator') then
    create role api_authenticator login noinherit nosuperuser nocreatedb nocreaterole
      nobypassrls noreplication;
  end if;
exception when duplicate_object or unique_violation then
  null; -- a concurrent migration created it first
end
$$;

grant anon, authenticated, service_role to api_authenticator;

-- Section: helpers
-- Whether the request runs under an API key (its claims carry the client) rather than a session.
-- The hosted platform's auth.jwt() is null, not an empty object, when a statement runs without
-- request claims (the dashboard, a migration, the owner's tools): that is "not an API-client
-- request" too, rather than a null that the character-write guard would read as one.
create function private.is_api_client_request() returns boolean
language sql stable set search_path = '' as $$
  select coalesce((select auth.jwt()) ? 'api_client_id', false)
$$;

-- The API client an API-key request runs for, or null for a signed-in user.
create function private.request_client_id() returns bigint
language sql stable set search_path = '' as $$
  select nullif((select auth.jwt()) ->> 'api_client_id', '')::bigint
$$;

-- A string of base-36 characters (0-9, a-z) from gen_random_uuid(), which draws from the strong
-- RNG and is built in everywhere (pgcrypto is not). Bytes 6 and 8 carry fixed version and variant
-- bits and are skipped; bytes of 252 and above are rejected so every character is equally likely.
create function private.random_base36(p_length integer) returns text
language plpgsql volatile set search_path = '' as $$
declare
  alphabet constant text := '0123456789abcdefghijklmnopqrstuvwxyz';
  result text := '';
  bytes bytea;
  b integer;
begin
  while char_length(result) < p_length loop
    bytes := uuid_send(gen_random_uuid());
    for i in 0..15 loop
      continue when i in (6, 8);
      b := get_byte(bytes, i);
      if b < 252 and char_length(result) < p_length then
        result := result || substr(alphabet, b % 36 + 1, 1);
      end if;
    end loop;
  end loop;
  return result;
end
$$;

-- Section: grants
grant usage on schema private to anon, authenticated, service_role, api_authenticator;
grant execute on function private.is_api_client_request() to anon, authenticated, service_role;
grant execute on function private.request_client_id() to authenticated, service_role;
grant execute on function private.random_base36(integer) to authenticated, service_role;

-- The default above also covers the extension created here. Search calls these as the caller:
-- similarity() for ranking, the `%` operator (similarity_op) for typo-tolerant name matching and
-- the `<->` distance operator (similarity_dist) for nearest-first similarity. Where the extension
-- already existed (hosted Supabase) these grants are already in place.
grant execute on function extensions.similarity(text, text) to authenticated, service_role;
grant execute on function extensions.similarity_op(text, text) to authenticated, service_role;
grant execute on function extensions.similarity_dist(text, text) to authenticated, service_role;
