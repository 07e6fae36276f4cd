-- Every request transaction opens with one statement that decides whom it acts as, so that the
-- statement can travel with BEGIN and the handler's first query in a single round trip:
-- `begin_request` for a caller known from a verified token (or no caller), and
-- `begin_api_key_request` for an API key, which resolves the key (and a character grant) itself.
-- Both set the role and `request.jwt.claims` transaction-locally, as PostgREST does. They are not
-- security definer (Postgres refuses a role change there), and like every function here they are
-- not executable by public: only the connecting role calls them.

-- Section: the API key lookup
-- Called on every API-key request: the data-modifying CTE it had ran an UPDATE each time; now the
-- once-a-minute `last_used_at` stamp runs only when it is due.
create or replace function private.resolve_api_key(p_key_hash text)
returns table (user_id uuid, client_id bigint)
language plpgsql volatile security definer set search_path = '' as $$
declare
  key_user uuid;
  key_client bigint;
  last_used timestamptz;
begin
  select k.user_id, k.client_id, c.last_used_at into key_user, key_client, last_used
  from private.api_key k
  left join public.api_client c on c.id = k.client_id
  where k.key_hash = p_key_hash;
  if not found then
    return;
  end if;
  if key_client is not null and (last_used is null or last_used < now() - interval '1 minute') then
    update public.api_client c set last_used_at = now()
    where c.id = key_client
      and (c.last_used_at is null or c.last_used_at < now() - interval '1 minute');
  end if;
  user_id := key_user;
  client_id := key_client;
  return next;
end
$$;

-- Section: request openers
-- Refusals use PostgREST-style SQLSTATEs: PT401 and PT403 become HTTP 401 and 403 fails.
create function private.begin_request(p_role text, p_claims text) returns void
language plpgsql volatile set search_path = '' as $$
begin
  if p_role is null or p_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'Unknown request role: %', p_role;
  end if;
  perform set_config('request.jwt.claims', coalesce(p_claims, '{}'), true);
  perform set_config('role', p_role, true);
  -- A token may outlive its account. (Nested: an AND would not spare anon the call, which it may
  -- not make.)
  if p_role = 'authenticated' then
    if not private.is_known_user() then
      raise exception 'User not found: the account behind this token no longer exists'
        using errcode = 'PT401';
    end if;
  end if;
end
$$;

-- Returns the claims the request runs under: a 60-second user token's claims for the key's user,
-- or for the owner of the character when `p_character_id` is given and the key's client holds a
-- grant on it.
create function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile set search_path = '' as $$
declare
  key_user uuid;
  key_client bigint;
  acting_user uuid;
  issued bigint := floor(extract(epoch from now()));
  claims text;
begin
  -- The lookups are granted to service_role only.
  perform set_config('role', 'service_role', true);
  select k.user_id, k.client_id into key_user, key_client
  from private.resolve_api_key(p_key_hash) k;
  if key_user is null then
    raise exception 'Invalid API Key' using errcode = 'PT401';
  end if;
  if key_client is null then
    raise exception 'Invalid API Key, no client found' using errcode = 'PT401';
  end if;
  acting_user := key_user;
  if p_character_id is not null then
    acting_user := private.resolve_character_grant(key_client, p_character_id);
    if acting_user is null then
      raise exception 'You do not have access to this character' using errcode = 'PT403';
    end if;
  end if;
  claims := json_build_object(
    'sub', acting_user, 'role', 'authenticated', 'aud', 'authenticated',
    'iat', issued, 'exp', issued + 60, 'api_client_id', key_client
  )::text;
  perform set_config('request.jwt.claims', claims, true);
  perform set_config('role', 'authenticated', true);
  return claims;
end
$$;
