-- The caller's supporter tier, as every cap checks it, now counts what the GM-group rules grant
-- (community paragons, developers and members of a GAME-MASTER's group pass levels 1-2), not only
-- the paid tier. Replacing the helper keeps its grants and every trigger that calls it.
create or replace function private.supporter_tier() returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce(private.effective_tier((select auth.uid())), 0::smallint)
$$;
