-- Every request transaction opens with one statement that decides whom it acts as, so that the
-- statement can travel with BEGIN and the handler's first query in a single round trip:
-- `begin_request` for a caller known from a verified token (or no caller), and
-- `begin_api_key_request` for an API key, which resolves the key (and a character grant) itself.
-- Both set the role and `request.jwt.claims` transaction-locally, as PostgREST does.
--
-- They run as the connecting role and switch to the request's role as their last step: they are
-- not security definer (Postgres refuses a role change there), and like every function here they
-- are not executable by public, so no request role can call them. They read the credential tables
-- directly, without the separate lookup functions they replace, and carry no search_path setting
-- (every name is schema-qualified): a function call with its own settings costs each request a
-- configuration save and restore.

drop function private.resolve_api_key(text);
drop function private.resolve_character_grant(bigint, bigint);
drop function private.is_known_user();

-- Refusals use PostgREST-style SQLSTATEs: PT401 and PT403 become HTTP 401 and 403 fails.
create function private.begin_request(p_role text, p_claims text) returns void
language plpgsql volatile as $$
begin
  if p_role is null or p_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'Unknown request role: %', p_role;
  end if;
  -- A token may outlive its account.
  if p_role = 'authenticated' then
    if not exists (
      select 1 from public.public_user u where u.user_id = (p_claims::json ->> 'sub')::uuid
    ) then
      raise exception 'User not found: the account behind this token no longer exists'
        using errcode = 'PT401';
    end if;
  end if;
  perform set_config('request.jwt.claims', coalesce(p_claims, '{}'), true),
    set_config('role', p_role, true);
end
$$;

-- Returns the claims the request runs under: a 60-second user token's claims for the key's user,
-- or for the owner of the character when `p_character_id` is given and the key's client holds a
-- grant on it. Stamps the client's `last_used_at`, at most once a minute.
create function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile as $$
declare
  key_user uuid;
  key_client bigint;
  last_used timestamptz;
  acting_user uuid;
  issued bigint := floor(extract(epoch from now()));
  claims text;
begin
  select k.user_id, k.client_id, c.last_used_at into key_user, key_client, last_used
  from private.api_key k
  left join public.api_client c on c.id = k.client_id
  where k.key_hash = p_key_hash;
  if key_user is null then
    raise exception 'Invalid API Key' using errcode = 'PT401';
  end if;
  if key_client is null then
    raise exception 'Invalid API Key, no client found' using errcode = 'PT401';
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
