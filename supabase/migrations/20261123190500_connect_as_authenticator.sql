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
