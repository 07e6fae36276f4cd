-- The checks that name why a write to a character or a campaign is refused, as statements: sent
-- ahead of the write they guard, in the same round trip, their refusal aborts the transaction, so
-- the write never runs and the check's message is the answer. They decide nothing the policies do
-- not: they run as the caller, under the same row-level policies, and only tell "not found" (the
-- row is not visible) from "no access" (visible, not owned).

create function private.assert_own_character(p_character_id bigint) returns void
language plpgsql volatile security invoker set search_path = '' as $$
declare
  mine boolean;
begin
  select c.user_id = (select auth.uid()) into mine from public.character c
  where c.id = p_character_id;
  if not found then
    raise exception 'Character not found';
  end if;
  if mine is not true then
    raise exception 'You do not have access to this character';
  end if;
end
$$;

create function private.assert_own_campaign(p_campaign_id bigint) returns void
language plpgsql volatile security invoker set search_path = '' as $$
declare
  mine boolean;
begin
  select c.user_id = (select auth.uid()) into mine from public.campaign c
  where c.id = p_campaign_id;
  if not found then
    raise exception 'Campaign not found';
  end if;
  if mine is not true then
    raise exception 'You do not have access to this campaign';
  end if;
end
$$;

revoke all on function private.assert_own_character(bigint) from public;
revoke all on function private.assert_own_campaign(bigint) from public;
grant execute on function private.assert_own_character(bigint) to anon, authenticated;
grant execute on function private.assert_own_campaign(bigint) to anon, authenticated;
