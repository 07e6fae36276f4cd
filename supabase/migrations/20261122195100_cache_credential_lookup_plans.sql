-- The credential lookups every API-key request makes (the key, a character grant) and the account
-- check of every JWT request, unchanged, in PL/pgSQL instead of SQL, for the same reason as
-- 20261122195000: before PostgreSQL 18 a security definer SQL function's body is planned again in
-- every statement that calls it, while PL/pgSQL keeps its plans for the session. `create or
-- replace` keeps the grants (service_role for the lookups, authenticated for the account check).

-- Section: helpers
create or replace function private.resolve_api_key(p_key_hash text)
returns table (user_id uuid, client_id bigint)
language plpgsql volatile security definer set search_path = '' as $$
begin
  return query
  with hit as (
    select k.user_id, k.client_id from private.api_key k where k.key_hash = p_key_hash
  ), touched as (
    update public.api_client c set last_used_at = now()
    from hit
    where c.id = hit.client_id
      and (c.last_used_at is null or c.last_used_at < now() - interval '1 minute')
  )
  select hit.user_id, hit.client_id from hit;
end
$$;

create or replace function private.resolve_character_grant(p_client_id bigint, p_character_id bigint)
returns uuid
language plpgsql stable security definer set search_path = '' as $$
declare
  owner_id uuid;
begin
  select c.user_id into owner_id
  from public.character_grant g
  join public.character c on c.id = g.character_id
  where g.client_id = p_client_id and g.character_id = p_character_id;
  return owner_id;
end
$$;

create or replace function private.is_known_user() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from public.public_user u where u.user_id = (select auth.uid()));
end
$$;
