-- The source read and write rules and the admin flag, unchanged, in PL/pgSQL instead of SQL. A
-- security definer SQL function is never inlined, and before PostgreSQL 18 its body is planned
-- again in every statement that calls it: every content SELECT under the row-level policies
-- re-planned these queries, 0.25-0.35 ms of the database's time per statement where the find
-- itself takes 0.03 ms. PL/pgSQL keeps each statement's plan for the session, so a policy now
-- costs one cached execution. `create or replace` keeps the grants and every policy calling them.

-- Section: helpers
create or replace function private.is_admin() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(
    (select u.is_admin from public.public_user u where u.user_id = (select auth.uid())),
    false
  );
end
$$;

create or replace function private.readable_source_ids() returns setof bigint
language plpgsql stable security definer set search_path = '' as $$
begin
  return query
  select s.id from public.content_source s
  where (s.user_id is null and (s.is_published or (select private.is_admin())))
    or s.user_id = (select auth.uid())
    or (
      s.is_published and (
        not s.require_key
        or exists (
          select 1 from private.content_source_unlock u
          where u.content_source_id = s.id and u.user_id = (select auth.uid())
        )
      )
    );
end
$$;

create or replace function private.writable_source_ids() returns setof bigint
language plpgsql stable security definer set search_path = '' as $$
begin
  return query
  select s.id from public.content_source s
  where s.user_id = (select auth.uid())
    or (s.user_id is null and (select private.is_admin()));
end
$$;
