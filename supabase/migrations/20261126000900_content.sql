-- The accessor of a content source's access keys becomes volatile: a source's save returns the
-- row it wrote, keys included, from the same statement, and only a volatile function sees what
-- the statement that calls it wrote. Being security definer, it was never inlined into a find, so
-- a find plans it as before. The body, owner and grants are unchanged.
create or replace function private.my_source_keys() returns table (content_source_id bigint, keys jsonb)
language sql volatile security definer set search_path = '' as $$
  select s.id, s.keys from public.content_source s
  where s.user_id = (select auth.uid())
  union all
  select s.id, s.keys from public.content_source s
  where s.user_id is null and (select private.is_admin())
$$;
