-- Holes found by attacking the service (issue "trust"): a cap on API clients, throttled access-key
-- guesses, API keys limited to what the consent screen lists, no references to rows the caller
-- cannot read, and the subscriber count only for sources the caller may read.

-- Section: tables
-- Wrong access keys entered, per user and source, for the unlock throttle. Rows older than the
-- window are deleted as new failures arrive.
create table private.content_source_unlock_failure (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  failed_at timestamptz not null default now()
);

-- An uploaded file's path starts with its owner's id, so a row can never claim another user's file.
alter table public.uploaded_file
  add constraint uploaded_file_path_is_owners check (split_part(path, '/', 1) = user_id::text);

-- Section: indexes
create index content_source_unlock_failure_idx
  on private.content_source_unlock_failure (user_id, content_source_id, failed_at);

-- Section: helpers
-- Enters an access key. Answers 'unlocked' or 'invalid' instead of raising on a wrong key, so the
-- failure it records survives (a raise would roll it back); after 5 wrong keys for one source in
-- 15 minutes it refuses to compare at all until the window has passed.
drop function private.unlock_content_source(bigint, text);
create function private.unlock_content_source(p_source_id bigint, p_access_key text)
returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  src public.content_source;
  caller uuid := (select auth.uid());
begin
  if caller is null then
    raise exception 'User not found';
  end if;
  select * into src from public.content_source s
  where s.id = p_source_id and (s.is_published or s.user_id = caller);
  if not found then
    raise exception 'Content source not found';
  end if;
  if not src.require_key or src.user_id is not distinct from caller then
    return 'unlocked';
  end if;
  -- One caller's guesses for one source are counted one at a time.
  perform pg_advisory_xact_lock(hashtextextended(caller::text || ':' || p_source_id, 0));
  delete from private.content_source_unlock_failure f
  where f.user_id = caller and f.content_source_id = p_source_id
    and f.failed_at < now() - interval '15 minutes';
  if (select count(*) from private.content_source_unlock_failure f
      where f.user_id = caller and f.content_source_id = p_source_id) >= 5 then
    raise exception 'Too many wrong access keys for this content source: try again in 15 minutes';
  end if;
  if coalesce(src.keys ->> 'access_key', '') = '' or src.keys ->> 'access_key' <> p_access_key then
    insert into private.content_source_unlock_failure (user_id, content_source_id)
    values (caller, p_source_id);
    return 'invalid';
  end if;
  insert into private.content_source_unlock (user_id, content_source_id)
  values (caller, p_source_id)
  on conflict do nothing;
  return 'unlocked';
end
$$;

-- The subscriber count of a source the caller may read; 0 for any other id, so it tells
-- nothing about sources the caller cannot see.
create or replace function private.content_source_subscriber_count(p_source_id bigint)
returns bigint
language sql stable security definer set search_path = '' as $$
  select count(*) from public.public_user u
  where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', p_source_id))
    and p_source_id in (select private.readable_source_ids())
$$;


-- Opens a request for a caller known from a verified token; a token may outlive its account, and
-- a deactivated account is refused like a missing one is (see 20261122200000 for the design).
create or replace function private.begin_request(p_role text, p_claims text) returns void
language plpgsql volatile as $$
declare
  account_deactivated boolean;
begin
  if p_role is null or p_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'Unknown request role: %', p_role;
  end if;
  if p_role = 'authenticated' then
    select u.deactivated into account_deactivated
    from public.public_user u where u.user_id = (p_claims::json ->> 'sub')::uuid;
    if account_deactivated is null then
      raise exception 'User not found: the account behind this token no longer exists'
        using errcode = 'PT401';
    end if;
    if account_deactivated then
      raise exception 'Account deactivated: this account can no longer use the API'
        using errcode = 'PT403';
    end if;
  end if;
  perform set_config('request.jwt.claims', coalesce(p_claims, '{}'), true),
    set_config('role', p_role, true);
end
$$;

-- Opens a request for an API key (see 20261122200000); the key's account must not be deactivated.
create or replace function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile as $$
declare
  key_user uuid;
  key_client bigint;
  last_used timestamptz;
  account_deactivated boolean;
  acting_user uuid;
  issued bigint := floor(extract(epoch from now()));
  claims text;
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
  claims := json_build_object(
    'sub', acting_user, 'role', 'authenticated', 'aud', 'authenticated',
    'iat', issued, 'exp', issued + 60, 'api_client_id', key_client
  )::text;
  perform set_config('request.jwt.claims', claims, true), set_config('role', 'authenticated', true);
  return claims;
end
$$;

-- Section: triggers
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

-- A key-locked source needs a key worth guessing: at least 8 characters. Official sources are
-- readable by everyone, so a key on one would lock nothing: it is refused rather than ignored.
create function private.vet_source_access_key() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.require_key and new.user_id is null then
    raise exception 'Invalid value for require_key: official content sources cannot require a key';
  end if;
  if new.require_key and length(coalesce(new.keys ->> 'access_key', '')) < 8 then
    raise exception 'Invalid value for keys.access_key: a key-locked source needs an access key of at least 8 characters';
  end if;
  return new;
end
$$;

create trigger vet_source_access_key before insert or update of require_key, keys, user_id
  on public.content_source
  for each row execute function private.vet_source_access_key();

-- Under an API key a character changes only as the consent screen says: its stats (hit points,
-- experience, hero points and similar values) and its inventory. Visibility, notes, campaign and
-- everything else stay the owner's to change in the app.
create function private.limit_api_client_character_writes() returns trigger
language plpgsql set search_path = '' as $$
declare
  allowed constant text[] := array[
    'level', 'experience', 'hp_current', 'hp_temp', 'hero_points', 'stamina_current',
    'resolve_current', 'inventory', 'updated_at'
  ];
  changed text[];
begin
  if not (select private.is_api_client_request()) then
    return new;
  end if;
  select array_agg(n.key order by n.key) into changed
  from jsonb_each(to_jsonb(new)) n
  join jsonb_each(to_jsonb(old)) o using (key)
  where n.value is distinct from o.value and not n.key = any (allowed);
  if changed is not null then
    raise exception 'API clients may change only a character''s stats and inventory: % cannot be changed with an API key',
      array_to_string(changed, ', ')
      using errcode = 'PT403';
  end if;
  return new;
end
$$;

create trigger limit_api_client_character_writes before update on public.character
  for each row execute function private.limit_api_client_character_writes();

-- A record may point only at rows its writer can read: foreign keys are checked without row
-- security, so without this a class could link another user's hidden trait, and the answer would
-- tell that the hidden row exists. Arguments: pairs of (column, referenced table). Runs as the
-- caller (not security definer), so the lookup sees exactly what the caller may read; the refusal
-- reads as a missing row, with the same SQLSTATE and field as a real foreign-key miss.
create function private.refuse_unreadable_references() returns trigger
language plpgsql set search_path = '' as $$
declare
  i integer := 0;
  column_name text;
  referenced text;
  new_value bigint;
  old_value bigint;
  found_row boolean;
begin
  while i < tg_nargs loop
    column_name := tg_argv[i];
    referenced := tg_argv[i + 1];
    i := i + 2;
    new_value := (to_jsonb(new) ->> column_name)::bigint;
    old_value := case when tg_op = 'UPDATE' then (to_jsonb(old) ->> column_name)::bigint end;
    continue when new_value is null or new_value is not distinct from old_value;
    execute format('select exists (select 1 from public.%I where id = $1)', referenced)
      into found_row using new_value;
    if not found_row then
      raise exception 'Referenced record not found: %', column_name
        using errcode = '23503', column = column_name;
    end if;
  end loop;
  return new;
end
$$;

create trigger refuse_unreadable_references before insert or update on public.class
  for each row execute function private.refuse_unreadable_references('trait_id', 'trait');
create trigger refuse_unreadable_references before insert or update on public.ancestry
  for each row execute function private.refuse_unreadable_references('trait_id', 'trait');
create trigger refuse_unreadable_references before insert or update on public.archetype
  for each row execute function private.refuse_unreadable_references(
    'trait_id', 'trait', 'dedication_feat_id', 'ability_block');
create trigger refuse_unreadable_references before insert or update on public.versatile_heritage
  for each row execute function private.refuse_unreadable_references(
    'trait_id', 'trait', 'heritage_id', 'ability_block');
create trigger refuse_unreadable_references before insert or update on public.class_archetype
  for each row execute function private.refuse_unreadable_references(
    'class_id', 'class', 'archetype_id', 'archetype');

-- Section: grants
revoke all on private.content_source_unlock_failure from public, anon, authenticated;
grant execute on function private.unlock_content_source(bigint, text) to authenticated;
-- The per-table search helpers take the visible sources as an argument and trust it: only
-- private.search_ranked_ids, which computes that list from the caller's readable sources, calls them.
do $$
declare
  helper regprocedure;
begin
  for helper in
    select p.oid::regprocedure from pg_proc p
    where p.pronamespace = 'private'::regnamespace
      and p.proname like 'search\_ranked\_%' and p.proname <> 'search_ranked_ids'
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', helper);
  end loop;
end
$$;
