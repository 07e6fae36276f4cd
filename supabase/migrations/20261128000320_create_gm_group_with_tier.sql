-- A GAME-MASTER supporter has a group, and so an access code to share, from the moment the tier
-- is theirs: the web client builds its share link from `patreon.game_master.access_code` and would
-- otherwise show `?code=null` until the first regenerate. Losing the tier keeps the group (its
-- members count again if the tier returns), as before.
create function private.open_gm_group() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if private.is_game_master(new.supporter_tier) then
    insert into public.gm_group (gm_user_id, access_code)
    values (new.user_id, private.random_base36(12))
    on conflict (gm_user_id) do nothing;
  end if;
  return new;
end
$$;

create trigger open_gm_group after insert or update of supporter_tier on public.public_user
  for each row execute function private.open_gm_group();

insert into public.gm_group (gm_user_id, access_code)
select u.user_id, private.random_base36(12)
from public.public_user u
where private.is_game_master(u.supporter_tier)
on conflict (gm_user_id) do nothing;
