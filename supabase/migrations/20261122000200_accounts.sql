-- Accounts: profiles and their supporter tiers, game-master groups (which lend supporter levels),
-- API clients and their hashed keys, uploaded public files, deleting one's own account, the two
-- functions that open every request's transaction as its caller, and the answers kept for retried
-- writes (Idempotency-Key).

-- Section: tables
-- Column grants (below) keep the tier, the role flags, ids and timestamps out of the user's reach.
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
  deactivated boolean not null default false,
  -- Subscriptions are matched by containment (`@> [{"source_id": n}]`), which needs numeric ids.
  -- Every element must be an object with a numeric source_id (strict mode: a missing key fails).
  constraint public_user_subscriptions_shape check (
    jsonb_typeof(subscribed_content_sources) <> 'array'
    or jsonb_array_length(subscribed_content_sources) = jsonb_array_length(jsonb_path_query_array(
      subscribed_content_sources,
      'strict $[*] ? (@.type() == "object" && @.source_id.type() == "number")'
    ))
  )
);

-- Game-master groups: a GAME-MASTER supporter (level 4) shares supporter levels 1 and 2 with up to
-- 99 members, who join with the group's access code. Rows are written only by the functions below.
create table public.gm_group (
  gm_user_id uuid primary key references public.public_user (user_id) on delete cascade,
  -- Up to 12 base-36 characters from a cryptographic RNG (private.random_base36).
  access_code text not null check (access_code ~ '^[0-9a-z]{1,12}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A member belongs to at most one group: joining another replaces the earlier one.
create table public.gm_group_member (
  user_id uuid primary key references public.public_user (user_id) on delete cascade,
  gm_user_id uuid not null references public.gm_group (gm_user_id) on delete cascade,
  added_at timestamptz not null default now(),
  check (user_id <> gm_user_id)
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

-- One row per stored public file. The row is what the tier rule guards (its insert trigger), and
-- it goes away with its owner's account. It is written only by upload-public-file, after it has
-- checked and stored the bytes, through private.record_upload: a signed-in user calling the REST
-- layer (PostgREST, which exposes `public`) cannot insert rows of its own making.
create table public.uploaded_file (
  id bigint generated always as identity primary key,
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  bucket text not null check (bucket in ('portraits', 'backgrounds')),
  path text not null check (path ~ '^[0-9a-f-]{36}/[0-9a-f]{64}\.(png|jpg|webp)$'),
  content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/webp')),
  byte_size integer not null check (byte_size between 1 and 2097152),
  created_at timestamptz not null default now(),
  unique (bucket, path),
  -- A path starts with its owner's id, so a row can never claim another user's file.
  constraint uploaded_file_path_is_owners check (split_part(path, '/', 1) = user_id::text)
);

-- Storage buckets for public files, one per upload category (shared/uploads.ts), public to read
-- and written only by upload-public-file with the project's secret key. Only where the platform's
-- Storage schema exists: the local server keeps files in a folder instead.
do $$
begin
  if to_regclass('storage.buckets') is not null then
    insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
    select category, category, true, 2097152, array['image/png', 'image/jpeg', 'image/webp']
    from unnest(array['portraits', 'backgrounds']) as category
    on conflict (id) do nothing;
  end if;
end
$$;

-- Each AI generation a user asked for within the last hour: the per-user budget of
-- open-ai-request, counted here so that every token and isolate of one user shares it.
create table private.ai_request (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  requested_at timestamptz not null default now()
);

-- Safe retries: the answer of a write sent with an Idempotency-Key, kept for 24 hours per caller
-- (the user, or for an API key its client), so a repeat gets the same answer without the work
-- being done twice. The row is written in the same transaction as the work: a request that failed
-- left neither, and a concurrent repeat waits on the row's key until the first commits.
create table private.idempotent_request (
  scope text not null,
  key text not null check (length(key) between 1 and 255),
  endpoint text not null,
  body_hash text not null,
  status smallint,
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (scope, key)
);

-- Section: indexes (policy and lookup columns)
create index gm_group_member_gm_user_id_idx on public.gm_group_member (gm_user_id);
create index api_client_user_id_idx on public.api_client (user_id);
create index api_key_user_id_idx on private.api_key (user_id);
create index uploaded_file_user_id_idx on public.uploaded_file (user_id);
create index ai_request_user_id_requested_at_idx on private.ai_request (user_id, requested_at);
-- Expired idempotency keys are found by age.
create index idempotent_request_created_at_idx on private.idempotent_request (created_at);
-- Counts subscribers of a source without reading every profile (get-content-source-stats).
create index public_user_subscribed_sources_idx on public.public_user
  using gin (subscribed_content_sources jsonb_path_ops);

-- Section: helpers
-- Reads the caller's own profile flags without going through public_user's policies. PL/pgSQL,
-- as private.has_unlocked_source of the content baseline: a security definer SQL function is
-- never inlined and, before PostgreSQL 18, its body is planned again in every statement that
-- calls it, while PL/pgSQL keeps each statement's plan for the session. Cost 1: the planner
-- charges a function's cost on every row a policy filters, and the default (100) made a
-- policy-filtered scan of a few thousand rows look expensive enough to be JIT-compiled, which
-- costs more than the scan.
create function private.is_admin() returns boolean
language plpgsql stable security definer set search_path = '' cost 1 as $$
begin
  return coalesce(
    (select u.is_admin from public.public_user u where u.user_id = (select auth.uid())),
    false
  );
end
$$;

-- Whether a supporter tier is the GAME-MASTER tier, the only one that runs a GM group (whose
-- members it lends supporter level 2). Plain SQL without `set` options, so the planner inlines it
-- wherever it is called: a query calling it is planned as if it held the comparison itself. The
-- API's get-user asks it too rather than keeping its own copy of the number.
create function private.is_game_master(p_supporter_tier integer) returns boolean
language sql immutable as $$
  select p_supporter_tier >= 4
$$;

-- The supporter level a user passes (section "Supporter levels" of the endpoint notes): the paid
-- tier, or level 2 for community paragons, developers and members of a group whose GM still holds
-- the GAME-MASTER tier. Security definer: it reads other users' rows (the member's GM); only the
-- service role and other security definer code (the cap triggers) call it.
create function private.effective_tier(p_user_id uuid) returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce((
    select greatest(
      u.supporter_tier,
      case
        when u.is_community_paragon or u.is_developer or exists (
          select 1
          from public.gm_group_member m
          join public.public_user gm on gm.user_id = m.gm_user_id
          where m.user_id = u.user_id and private.is_game_master(gm.supporter_tier)
        ) then 2
        else 0
      end
    )::smallint
    from public.public_user u
    where u.user_id = p_user_id
  ), 0::smallint)
$$;

-- The caller's supporter tier, as every cap checks it (paid tier, role flags, GM group).
create function private.supporter_tier() returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce(private.effective_tier((select auth.uid())), 0::smallint)
$$;

-- Every supporter-tier cap refuses in one form (more-endpoints section 8): "User does not have
-- access: <what> requires supporter tier <n> or higher", with data.required_tier = n. Raises that
-- when p_user_id's supporter level (private.effective_tier: paid tier, role flags, GM group) is
-- below p_tier. Called only by the security definer cap functions, as their owner: it is granted
-- to no request role.
create function private.require_tier(p_user_id uuid, p_tier integer, p_action text)
returns void
language plpgsql stable set search_path = '' as $$
begin
  if private.effective_tier(p_user_id) < p_tier then
    raise exception 'User does not have access: % requires supporter tier % or higher',
      p_action, p_tier
      using detail = format('{"required_tier": %s}', p_tier);
  end if;
end
$$;

-- Spends one AI generation of the caller's budget: supporter level 1 (the reference's UI offers
-- its generators to supporters), at most 60 an hour. A user's claims are serialised by an advisory
-- lock so concurrent calls cannot pass the cap together. Security definer: the log is private.
create function private.claim_ai_request() returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  caller constant uuid := (select auth.uid());
begin
  if caller is null then
    raise exception 'User not found';
  end if;
  perform private.require_tier(caller, 1, 'AI generation');
  perform pg_advisory_xact_lock(hashtext('private.ai_request'), hashtext(caller::text));
  delete from private.ai_request r
  where r.user_id = caller and r.requested_at < now() - interval '1 hour';
  if (select count(*) from private.ai_request r where r.user_id = caller) >= 60 then
    raise exception 'Too many requests, please try again later.'
      using detail = '{"limit": 60, "window_seconds": 3600}';
  end if;
  insert into private.ai_request (user_id) values (caller);
end
$$;

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

-- Joins the caller to a GM's group when the code matches, the GM holds the GAME-MASTER tier and
-- the group has room (99 members); false otherwise, without saying which check failed. Security
-- definer: the group's code is not readable by the joining user. The group row is locked so
-- concurrent joins cannot pass the cap.
create function private.join_gm_group(p_gm_user_id uuid, p_access_code text) returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
  group_code text;
begin
  if me is null or (select private.is_api_client_request()) or me = p_gm_user_id then
    return false;
  end if;
  if private.is_game_master((select u.supporter_tier from public.public_user u where u.user_id = me))
  then
    return false;
  end if;
  select g.access_code into group_code
  from public.gm_group g
  join public.public_user gm on gm.user_id = g.gm_user_id
  where g.gm_user_id = p_gm_user_id and private.is_game_master(gm.supporter_tier)
  for update of g;
  if group_code is null or group_code <> p_access_code then
    return false;
  end if;
  if (
    select count(*) from public.gm_group_member m
    where m.gm_user_id = p_gm_user_id and m.user_id <> me
  ) >= 99 then
    return false;
  end if;
  insert into public.gm_group_member (user_id, gm_user_id)
  values (me, p_gm_user_id)
  on conflict (user_id) do update set gm_user_id = excluded.gm_user_id, added_at = now();
  return true;
end
$$;

-- Gives the calling GAME-MASTER supporter a new access code (creating the group on first use);
-- members stay. False when the caller does not hold the GAME-MASTER tier.
create function private.regenerate_gm_code() returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
begin
  if me is null or (select private.is_api_client_request()) then
    return false;
  end if;
  if not private.is_game_master(
    coalesce((select u.supporter_tier from public.public_user u where u.user_id = me), 0)
  ) then
    return false;
  end if;
  insert into public.gm_group (gm_user_id, access_code)
  values (me, private.random_base36(12))
  on conflict (gm_user_id) do update
    set access_code = excluded.access_code, updated_at = now();
  return true;
end
$$;

-- The caller's group members with the public part of their profiles; empty unless the caller holds
-- the GAME-MASTER tier. Security definer: members' profiles are not readable by other users.
create function private.gm_group_members()
returns table (user_id uuid, display_name text, image_url text, added_at timestamptz)
language sql stable security definer set search_path = '' as $$
  select m.user_id, u.display_name, u.image_url, m.added_at
  from public.gm_group_member m
  join public.public_user u on u.user_id = m.user_id
  where m.gm_user_id = (select auth.uid())
    and not (select private.is_api_client_request())
    and exists (
      select 1 from public.public_user gm
      where gm.user_id = m.gm_user_id and private.is_game_master(gm.supporter_tier)
    )
  order by m.added_at, m.user_id
$$;

-- Records a file upload-public-file has checked and stored, as the signed-in caller's. Security
-- definer in `private`, which the REST layer does not expose, so only the function writes these
-- rows; the tier trigger and the path rule still apply.
create function private.record_upload(
  p_bucket text,
  p_path text,
  p_content_type text,
  p_byte_size integer
) returns void
language sql security definer set search_path = '' as $$
  insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
  values ((select auth.uid()), p_bucket, p_path, p_content_type, p_byte_size)
  on conflict (bucket, path) do nothing
$$;

-- Another user's profile, public columns only. Security definer because profiles are readable
-- only by their owner; this returns the columns anyone may see and nothing else. Signed-out
-- visitors call it too: any account could read the same the moment it signs up. Deactivated
-- accounts are not shown.
create function private.public_profile(p_user_id uuid, p_profile_id bigint)
returns table (
  id bigint, user_id uuid, created_at timestamptz, display_name text, image_url text,
  background_image_url text, site_theme jsonb, summary text, is_admin boolean, is_mod boolean,
  is_developer boolean, is_community_paragon boolean, supporter_tier smallint
)
language sql stable security definer set search_path = '' as $$
  select u.id, u.user_id, u.created_at, u.display_name, u.image_url, u.background_image_url,
         u.site_theme, u.summary, u.is_admin, u.is_mod, u.is_developer, u.is_community_paragon,
         u.supporter_tier
  from public.public_user u
  where (p_user_id is not null or p_profile_id is not null)
    and (p_user_id is null or u.user_id = p_user_id)
    and (p_profile_id is null or u.id = p_profile_id)
    and not u.deactivated
$$;

-- Deletes the signed-in caller's identity; the profile and everything owned through it cascade
-- (characters, campaigns, encounters, API clients and key hashes, grants, proposals, files), all
-- in the caller's transaction. Refused while the caller owns content sources, which would
-- otherwise vanish for their subscribers. Security definer because identities are not writable
-- by users; it only ever deletes the caller.
create function private.delete_own_account() returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  me uuid := (select auth.uid());
begin
  if me is null or (select private.is_api_client_request()) then
    raise exception 'User not found';
  end if;
  if exists (select 1 from public.content_source s where s.user_id = me) then
    raise exception 'Delete or transfer your content sources first';
  end if;
  delete from auth.users where id = me;
  if not found then
    raise exception 'User not found';
  end if;
  return me;
end
$$;

-- Every request transaction opens with one statement that decides whom it acts as, so that the
-- statement can travel with BEGIN and the handler's first query in a single round trip:
-- `begin_request` for a caller known from a verified token (or no caller), and
-- `begin_api_key_request` for an API key, which resolves the key (and a character grant, a table
-- of the play baseline). Both set the role and `request.jwt.claims` transaction-locally, as
-- PostgREST does. Every request, reads included, runs in a transaction of its own: a one-statement
-- read (opener and read in one call) needed the caller's values spliced into SQL to keep its plans,
-- so there is none.
--
-- They run as the connecting role, api_authenticator (platform baseline), and switch to the
-- request's role as their last step: they are not security definer (Postgres refuses a role
-- change there). The connecting role reads no table itself, so each reads the credential tables
-- through one security definer lookup below that only api_authenticator may call. No request role
-- may call any of these. Every one of them has its search_path pinned.
-- Refusals use PostgREST-style SQLSTATEs: PT401 and PT403 become HTTP 401 and 403 fails. A token
-- may outlive its account, and a deactivated account is refused like a missing one.

-- Whether a user's account is deactivated; null when there is no such account.
create function private.account_deactivated(p_user_id uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select u.deactivated from public.public_user u where u.user_id = p_user_id);
end
$$;

-- Resolves an API key (and a character grant when p_character_id is given) to the claims its
-- request runs under: a 60-second user token's claims for the key's user, or for the owner of the
-- character when the key's client holds a grant on it. Stamps the client's `last_used_at`, at
-- most once a minute. Refuses with PT401 (unknown key) or PT403 (deactivated, no grant).
create function private.resolve_api_key(p_key_hash text, p_character_id bigint) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  key_user uuid;
  key_client bigint;
  last_used timestamptz;
  account_deactivated boolean;
  acting_user uuid;
  issued bigint := floor(extract(epoch from now()));
begin
  select k.user_id, k.client_id, c.last_used_at, u.deactivated
    into key_user, key_client, last_used, account_deactivated
  from private.api_key k
  left join public.api_client c on c.id = k.client_id
  left join public.public_user u on u.user_id = k.user_id
  where k.key_hash = p_key_hash;
  if key_user is null then
    raise exception 'Invalid API Key' using errcode = 'PT401';
  end if;
  if key_client is null then
    raise exception 'Invalid API Key, no client found' using errcode = 'PT401';
  end if;
  if account_deactivated then
    raise exception 'Account deactivated: this account can no longer use the API'
      using errcode = 'PT403';
  end if;
  if last_used is null or last_used < now() - interval '1 minute' then
    update public.api_client c set last_used_at = now()
    where c.id = key_client
      and (c.last_used_at is null or c.last_used_at < now() - interval '1 minute');
  end if;
  acting_user := key_user;
  if p_character_id is not null then
    select c.user_id into acting_user
    from public.character_grant g
    join public.character c on c.id = g.character_id
    where g.client_id = key_client and g.character_id = p_character_id;
    if acting_user is null then
      raise exception 'You do not have access to this character' using errcode = 'PT403';
    end if;
  end if;
  return json_build_object(
    'sub', acting_user, 'role', 'authenticated', 'aud', 'authenticated',
    'iat', issued, 'exp', issued + 60, 'api_client_id', key_client
  )::text;
end
$$;

-- Opens a request for a caller known from a verified token (or no caller).
create function private.begin_request(p_role text, p_claims text) returns void
language plpgsql volatile set search_path = '' as $$
declare
  deactivated boolean;
begin
  if p_role is null or p_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'Unknown request role: %', p_role;
  end if;
  if p_role = 'authenticated' then
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

-- Opens a request for an API key; returns the claims it runs under.
create function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile set search_path = '' as $$
declare
  claims constant text := private.resolve_api_key(p_key_hash, p_character_id);
begin
  perform set_config('request.jwt.claims', claims, true), set_config('role', 'authenticated', true);
  return claims;
end
$$;

-- Idempotency keys (private.idempotent_request above): a write sent with an Idempotency-Key
-- claims its key in its own transaction, then keeps its answer under it.

-- Whose key this is: the API client for an API-key request, else the signed-in user.
create function private.idempotency_scope() returns text
language sql stable set search_path = '' as $$
  select case
    when (select private.is_api_client_request()) then 'client:' || private.request_client_id()
    when (select auth.uid()) is not null then 'user:' || (select auth.uid())
  end
$$;

-- Claims a key for this request. Answers nothing when the request is the first (it goes on to do
-- the work); else the earlier request's endpoint, body hash and answer, or no answer with whether
-- it may still be coming (a minute after its commit it is taken as lost). Expired keys are removed
-- here, a few at a time and never waiting on rows another request holds, since there is no cron.
create function private.claim_idempotency_key(p_key text, p_endpoint text, p_body_hash text)
returns table (endpoint text, body_hash text, status smallint, answer jsonb, answering boolean)
language plpgsql security definer set search_path = '' as $$
declare
  caller constant text := private.idempotency_scope();
begin
  if caller is null then
    raise exception 'An Idempotency-Key needs a caller' using errcode = '42501';
  end if;
  delete from private.idempotent_request r
  where r.ctid = any (array(
    select o.ctid from private.idempotent_request o
    where o.created_at < now() - interval '24 hours' limit 20 for update skip locked));
  delete from private.idempotent_request r
  where r.scope = caller and r.key = p_key and r.created_at < now() - interval '24 hours';
  insert into private.idempotent_request (scope, key, endpoint, body_hash)
  values (caller, p_key, p_endpoint, p_body_hash)
  on conflict do nothing;
  if found then
    return;
  end if;
  return query
    select r.endpoint, r.body_hash, r.status, r.answer,
           r.created_at > now() - interval '1 minute'
    from private.idempotent_request r
    where r.scope = caller and r.key = p_key;
end
$$;

-- Keeps the answer of the request that claimed the key.
create function private.remember_idempotent_answer(p_key text, p_status smallint, p_answer jsonb)
returns void
language sql security definer set search_path = '' as $$
  update private.idempotent_request
  set status = p_status, answer = p_answer
  where scope = private.idempotency_scope() and key = p_key
$$;

-- Section: policies
alter table public.public_user enable row level security;
alter table public.gm_group enable row level security;
alter table public.gm_group_member enable row level security;
alter table public.api_client enable row level security;
alter table private.api_key enable row level security;
alter table public.uploaded_file enable row level security;

create policy "Users can read their own profile" on public.public_user
  for select to authenticated using (user_id = (select auth.uid()));

create policy "Users can edit their own profile" on public.public_user
  for update to authenticated using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()));

create policy "Game masters can read their own group and its access code" on public.gm_group
  for select to authenticated
  using (gm_user_id = (select auth.uid()) and not (select private.is_api_client_request()));

create policy "Members and their game master can read a membership" on public.gm_group_member
  for select to authenticated
  using (
    (user_id = (select auth.uid()) or gm_user_id = (select auth.uid()))
    and not (select private.is_api_client_request())
  );

create policy "Members can leave and game masters can remove members" on public.gm_group_member
  for delete to authenticated
  using (
    (user_id = (select auth.uid()) or gm_user_id = (select auth.uid()))
    and not (select private.is_api_client_request())
  );

create policy "Users can read their own API clients" on public.api_client
  for select to authenticated
  using (user_id = (select auth.uid()) and not (select private.is_api_client_request()));

create policy "Users can revoke their own API clients" on public.api_client
  for delete to authenticated
  using (user_id = (select auth.uid()) and not (select private.is_api_client_request()));

create policy "Users can read their own uploaded files" on public.uploaded_file
  for select to authenticated using (user_id = (select auth.uid()));

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

-- Uploads need supporter level 1 (private.require_tier refuses in the one form of every cap).
-- Rows recorded with no signed-in user (maintenance) are not the caller's upload: no tier to check.
create function private.enforce_upload_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is not null then
    perform private.require_tier((select auth.uid()), 1, 'uploading files');
  end if;
  return new;
end
$$;

create trigger enforce_upload_tier before insert on public.uploaded_file
  for each row execute function private.enforce_upload_tier();

-- An account may have at most 10 API clients; each has its own request budget, so unlimited
-- clients would multiply it. The owner's row is locked so concurrent creates count one by one.
create function private.cap_api_clients() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform 1 from public.public_user u where u.user_id = new.user_id for update;
  if (select count(*) from public.api_client c where c.user_id = new.user_id) >= 10 then
    raise exception 'API client limit reached: an account may have at most 10 API clients; delete one first'
      using detail = '{"limit": 10}';
  end if;
  return new;
end
$$;

create trigger cap_api_clients before insert on public.api_client
  for each row execute function private.cap_api_clients();

-- Section: grants
-- Tables: column grants keep the tier and role flags, ids and timestamps out of the user's hands.
grant select on public.public_user to authenticated;
grant update (display_name, image_url, background_image_url, summary, organized_play_id,
  site_theme, subscribed_content_sources) on public.public_user to authenticated;
grant select on public.gm_group to authenticated;
grant select, delete on public.gm_group_member to authenticated;
grant select, delete on public.api_client to authenticated;
-- Uploaded files are read by their owner and recorded only through private.record_upload.
grant select on public.uploaded_file to authenticated;

-- Functions. anon: the content read policies call is_admin for signed-out visitors too, and a
-- visitor reads public profiles (a proposal's author, a shared character's owner).
-- get-user asks whether the caller's tier is the GAME-MASTER one; require_tier is the definer
-- functions' only.
grant execute on function private.is_admin() to anon, authenticated, service_role;
grant execute on function private.is_game_master(integer) to authenticated;
grant execute on function private.effective_tier(uuid) to service_role;
grant execute on function private.supporter_tier() to authenticated, service_role;
grant execute on function private.claim_ai_request() to authenticated;
grant execute on function private.create_api_client(text, text, text) to authenticated;
grant execute on function private.join_gm_group(uuid, text) to authenticated;
grant execute on function private.regenerate_gm_code() to authenticated;
grant execute on function private.gm_group_members() to authenticated;
grant execute on function private.public_profile(uuid, bigint) to anon, authenticated;
grant execute on function private.delete_own_account() to authenticated;
grant execute on function private.record_upload(text, text, text, integer) to authenticated;
-- The idempotency table is the definer functions' alone (no grant on it).
grant execute on function private.claim_idempotency_key(text, text, text) to authenticated;
grant execute on function private.remember_idempotent_answer(text, smallint, jsonb)
  to authenticated;

-- Only the connecting role opens requests; no request role may call any of these.
grant execute on function private.account_deactivated(uuid) to api_authenticator;
grant execute on function private.resolve_api_key(text, bigint) to api_authenticator;
grant execute on function private.begin_request(text, text) to api_authenticator;
grant execute on function private.begin_api_key_request(text, bigint) to api_authenticator;
