-- The campaign join key's accessor becomes volatile: a campaign's save returns its key from the
-- same statement (`returning ..., private.campaign_join_key(id)`), and only a volatile function
-- sees the row the statement that calls it wrote. The body, owner and grants are unchanged.
create or replace function private.campaign_join_key(p_campaign_id bigint) returns text
language sql volatile security definer set search_path = '' as $$
  select c.join_key from public.campaign c
  where c.id = p_campaign_id and c.user_id = (select auth.uid())
$$;
