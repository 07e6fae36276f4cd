-- Trust (issue 17, items 10 and 12's database side): the campaign join key is hidden in the
-- database, and requests connect as a login role that owns nothing and reads nothing itself.

-- Section: the campaign join key
-- A player reads the campaign they play in, but its join key lets anyone they hand it to move a
-- character into it: only the owner reads it. The column is left out of the table's grant, so no
-- endpoint and no request through the hosted REST layer can select it; the owner reads it through
-- private.campaign_join_key, and whoever knows a key through private.find_campaign_by_join_key.
revoke select on public.campaign from authenticated;
grant select (id, created_at, user_id, name, description, notes, recommended_options,
  recommended_variants, recommended_content_sources, custom_operations, meta_data)
  on public.campaign to authenticated;

-- The join key of a campaign the caller owns; null for any other id.
create function private.campaign_join_key(p_campaign_id bigint) returns text
language sql stable security definer set search_path = '' as $$
  select c.join_key from public.campaign c
  where c.id = p_campaign_id and c.user_id = (select auth.uid())
$$;

grant execute on function private.campaign_join_key(bigint) to authenticated;

-- Section: the role requests connect as
-- As PostgREST's `authenticator`: a login role that is only a member of the request roles, does
-- not inherit their privileges (NOINHERIT), owns nothing and holds no table privilege, so a
-- request that has not switched to its role can read nothing. Roles belong to the cluster, not the
-- database: several databases (and concurrent migrations) share it. It is created without a
-- password: on a hosted project the operator sets one (`alter role api_authenticator with
-- password '...'`) and gives it to the functions as API_AUTHENTICATOR_PASSWORD; a local Postgres
-- that trusts local connections needs none.
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
grant usage on schema private to api_authenticator;

-- The openers run as the connecting role, since Postgres refuses a role change inside a security
-- definer function: each reads the credential tables through one security definer lookup that
-- only api_authenticator may call, then switches role. Every one of them has its search_path
-- pinned.

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

-- Opens a request for a caller known from a verified token (or no caller); a token may outlive
-- its account, and a deactivated account is refused.
create or replace function private.begin_request(p_role text, p_claims text) returns void
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
create or replace function private.begin_api_key_request(p_key_hash text, p_character_id bigint)
returns text
language plpgsql volatile set search_path = '' as $$
declare
  claims constant text := private.resolve_api_key(p_key_hash, p_character_id);
begin
  perform set_config('request.jwt.claims', claims, true), set_config('role', 'authenticated', true);
  return claims;
end
$$;

-- Only the connecting role opens requests; no request role may call any of these.
grant execute on function private.account_deactivated(uuid) to api_authenticator;
grant execute on function private.resolve_api_key(text, bigint) to api_authenticator;
grant execute on function private.begin_request(text, text) to api_authenticator;
grant execute on function private.begin_api_key_request(text, bigint) to api_authenticator;
-- The one-statement read opens its request the same way, so it is the connecting role's too.
revoke execute on function private.read_as(text, text, text, text, text[]) from current_user;
grant execute on function private.read_as(text, text, text, text, text[]) to api_authenticator;
