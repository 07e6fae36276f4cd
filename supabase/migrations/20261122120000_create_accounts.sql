-- Accounts: profiles, API clients and their hashed keys, and the lookups a request may make
-- beyond its own row-level policies (resolving an API key).

-- Section: setup
-- Functions are not callable by everyone by default; each one is granted right below it.
alter default privileges revoke execute on functions from public;
create schema if not exists private;
grant usage on schema private to anon, authenticated, service_role;

-- Section: tables
create table public.public_user (
  user_id uuid primary key references auth.users (id) on delete cascade,
  id bigint generated always as identity unique,
  created_at timestamptz not null default now(),
  display_name text not null default '' check (char_length(display_name) <= 100),
  image_url text check (char_length(image_url) <= 2000),
  background_image_url text check (char_length(background_image_url) <= 2000),
  summary text check (char_length(summary) <= 5000),
  organized_play_id text check (char_length(organized_play_id) <= 100),
  site_theme jsonb not null default '{}' check (jsonb_typeof(site_theme) = 'object'),
  subscribed_content_sources jsonb not null default '[]'
    check (jsonb_typeof(subscribed_content_sources) = 'array'),
  supporter_tier smallint not null default 0 check (supporter_tier between 0 and 4),
  is_admin boolean not null default false,
  is_mod boolean not null default false,
  is_developer boolean not null default false,
  is_community_paragon boolean not null default false,
  deactivated boolean not null default false
);

create table public.api_client (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  name text not null check (char_length(name) between 1 and 100),
  description text check (char_length(description) <= 500),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);

-- Keys are stored only as SHA-256 hashes, in a schema the API never exposes. Deleting a client
-- keeps the hash with no client, so a stale key is told apart from an unknown one.
create table private.api_key (
  key_hash text primary key check (key_hash ~ '^[0-9a-f]{64}$'),
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  client_id bigint unique references public.api_client (id) on delete set null
);

-- Section: indexes on policy columns
create index api_client_user_id_idx on public.api_client (user_id);
create index api_key_user_id_idx on private.api_key (user_id);

-- Section: grants (column grants keep tier and role flags out of the user's reach)
grant select on public.public_user to authenticated;
grant update (display_name, image_url, background_image_url, summary, organized_play_id,
  site_theme, subscribed_content_sources) on public.public_user to authenticated;
grant select, delete on public.api_client to authenticated;

-- Section: helpers
create function private.is_api_client_request() returns boolean
language sql stable set search_path = '' as $$
  select (select auth.jwt()) ? 'api_client_id'
$$;
grant execute on function private.is_api_client_request() to anon, authenticated, service_role;

-- Reads the caller's own profile flags without going through public_user's policies.
create function private.is_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(
    (select u.is_admin from public.public_user u where u.user_id = (select auth.uid())),
    false
  )
$$;
grant execute on function private.is_admin() to authenticated, service_role;

create function private.supporter_tier() returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce(
    (select u.supporter_tier from public.public_user u where u.user_id = (select auth.uid())),
    0::smallint
  )
$$;
grant execute on function private.supporter_tier() to authenticated, service_role;

-- Whether the signed-in caller still has an account (a deleted user's token must stop working).
create function private.is_known_user() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.public_user u where u.user_id = (select auth.uid()))
$$;
grant execute on function private.is_known_user() to authenticated;

-- Section: triggers
create function private.create_profile_for_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.public_user (user_id, display_name)
  values (new.id, coalesce(new.raw_user_meta_data ->> 'display_name', split_part(new.email, '@', 1), ''));
  return new;
end
$$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.create_profile_for_new_user();

-- Section: policies
alter table public.public_user enable row level security;
alter table public.api_client enable row level security;
alter table private.api_key enable row level security;

create policy "Users can read their own profile" on public.public_user
  for select to authenticated using (user_id = (select auth.uid()));

create policy "Users can edit their own profile" on public.public_user
  for update to authenticated using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()));

create policy "Users can read their own API clients" on public.api_client
  for select to authenticated
  using (user_id = (select auth.uid()) and not (select private.is_api_client_request()));

create policy "Users can revoke their own API clients" on public.api_client
  for delete to authenticated
  using (user_id = (select auth.uid()) and not (select private.is_api_client_request()));

-- Section: public functions
-- Creates a client and stores its key's hash in one step; the key itself never reaches the
-- database. Security definer because the key table is not writable by users; the checks below
-- are the whole of what it allows.
create function private.create_api_client(p_name text, p_description text, p_key_hash text)
returns public.api_client
language plpgsql security definer set search_path = '' as $$
declare
  created public.api_client;
begin
  if (select auth.uid()) is null or (select private.is_api_client_request()) then
    raise exception 'API clients can only be managed by a signed-in user';
  end if;
  insert into public.api_client (user_id, name, description)
  values ((select auth.uid()), p_name, p_description)
  returning * into created;
  insert into private.api_key (key_hash, user_id, client_id)
  values (p_key_hash, created.user_id, created.id);
  return created;
end
$$;
grant execute on function private.create_api_client(text, text, text) to authenticated;

-- Resolves an API key's hash to its user and client (null client: revoked). Granted only to the
-- service role: this is one of the two lookups a request may make outside its own policies.
create function private.resolve_api_key(p_key_hash text)
returns table (user_id uuid, client_id bigint)
language sql volatile security definer set search_path = '' as $$
  with hit as (
    select k.user_id, k.client_id from private.api_key k where k.key_hash = p_key_hash
  ), touched as (
    update public.api_client c set last_used_at = now()
    from hit
    where c.id = hit.client_id
      and (c.last_used_at is null or c.last_used_at < now() - interval '1 minute')
  )
  select hit.user_id, hit.client_id from hit
$$;
grant execute on function private.resolve_api_key(text) to service_role;
