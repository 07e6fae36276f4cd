-- Signed-out visitors. When nobody is signed in, supabase-js sends the project's anon key (a JWT
-- whose role is `anon`), and the request runs as role `anon`. A visitor reads what the read rules
-- give a caller without a user, and nothing else: published official books (and published
-- homebrew books that need no access key) with their content, and public characters. The rules
-- are the signed-in users' own read policies and helpers, widened to `anon`, so "who may read a
-- spell" stays answered in one place. Visitors write nothing and see no account, campaign, grant
-- or moderation table: those keep their `authenticated`-only grants.

-- Section: policies
do $$
declare
  t text;
begin
  for t in
    select p.tablename from pg_policies p
    where p.schemaname = 'public' and p.policyname = 'Content of readable sources can be read'
  loop
    execute format(
      'alter policy "Content of readable sources can be read" on public.%I to authenticated, anon',
      t);
    execute format('grant select on public.%I to anon', t);
  end loop;
end
$$;

alter policy "Readable sources can be read" on public.content_source to authenticated, anon;

alter policy "Characters are readable by owner, GM, admin, or all if public" on public.character
  to authenticated, anon;

-- Section: grants
-- The same columns as for signed-in users: `keys` stays out.
grant select (id, name, url, created_at, updated_at, external_id, description, operations, user_id,
  contact_info, require_key, is_published, required_content_sources, "group", artwork_url,
  meta_data) on public.content_source to anon;
grant select on public.character to anon;

-- The helpers the read policies and the find and search statements call. Each decides by
-- `auth.uid()`, which is null for a visitor: no own, unlocked, writable or admin rows.
grant execute on function private.readable_source_ids() to anon;
grant execute on function private.can_read_source(bigint) to anon;
grant execute on function private.my_source_keys() to anon;
grant execute on function private.is_admin() to anon;
grant execute on function private.owns_campaign(bigint) to anon;
grant execute on function private.can_read_character(bigint, uuid, bigint, jsonb) to anon;
grant execute on function private.search_ranked_ids(text, text, text, text, bigint[], integer)
  to anon;
grant execute on function private.search_matching_ids(text, text, text[], text[]) to anon;
