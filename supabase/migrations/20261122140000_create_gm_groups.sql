-- Game-master groups: a GAME-MASTER supporter (level 4) shares supporter levels 1 and 2 with up to
-- 99 members, who join with the group's access code. Also the effective supporter level every
-- tier cap checks (the supporter tier, raised to 2 by a role flag or a live group membership).

-- Section: tables
create table public.gm_group (
  gm_user_id uuid primary key references public.public_user (user_id) on delete cascade,
  -- Up to 12 base-36 characters from a cryptographic RNG (private.random_base36).
  access_code text not null check (access_code ~ '^[0-9a-z]{1,12}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A member belongs to at most one group: joining another replaces the earlier one.
create table public.gm_group_member (
  user_id uuid primary key references public.public_user (user_id) on delete cascade,
  gm_user_id uuid not null references public.gm_group (gm_user_id) on delete cascade,
  added_at timestamptz not null default now(),
  check (user_id <> gm_user_id)
);

-- Section: indexes on policy columns
create index gm_group_member_gm_user_id_idx on public.gm_group_member (gm_user_id);

-- Section: grants (rows are created only through the functions below)
grant select on public.gm_group to authenticated;
grant select, delete on public.gm_group_member to authenticated;

-- Section: helpers
-- A string of base-36 characters (0-9, a-z) from gen_random_uuid(), which draws from the strong
-- RNG and is built in everywhere (pgcrypto is not). Bytes 6 and 8 carry fixed version and variant
-- bits and are skipped; bytes of 252 and above are rejected so every character is equally likely.
create function private.random_base36(p_length integer) returns text
language plpgsql volatile set search_path = '' as $$
declare
  alphabet constant text := '0123456789abcdefghijklmnopqrstuvwxyz';
  result text := '';
  bytes bytea;
  b integer;
begin
  while char_length(result) < p_length loop
    bytes := uuid_send(gen_random_uuid());
    for i in 0..15 loop
      continue when i in (6, 8);
      b := get_byte(bytes, i);
      if b < 252 and char_length(result) < p_length then
        result := result || substr(alphabet, b % 36 + 1, 1);
      end if;
    end loop;
  end loop;
  return result;
end
$$;
grant execute on function private.random_base36(integer) to authenticated, service_role;

-- The supporter level a user passes (section "Supporter levels" of the endpoint notes): the paid
-- tier, or level 2 for community paragons, developers and members of a group whose GM still holds
-- the GAME-MASTER tier. Security definer: it reads other users' rows (the member's GM); only the
-- service role and other security definer code (the cap triggers) call it.
create function private.effective_tier(p_user_id uuid) returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce((
    select greatest(
      u.supporter_tier,
      case
        when u.is_community_paragon or u.is_developer or exists (
          select 1
          from public.gm_group_member m
          join public.public_user gm on gm.user_id = m.gm_user_id
          where m.user_id = u.user_id and gm.supporter_tier >= 4
        ) then 2
        else 0
      end
    )::smallint
    from public.public_user u
    where u.user_id = p_user_id
  ), 0::smallint)
$$;
grant execute on function private.effective_tier(uuid) to service_role;

-- Section: policies
alter table public.gm_group enable row level security;
alter table public.gm_group_member enable row level security;

create policy "Game masters can read their own group and its access code" on public.gm_group
  for select to authenticated
  using (gm_user_id = (select auth.uid()) and not (select private.is_api_client_request()));

create policy "Members and their game master can read a membership" on public.gm_group_member
  for select to authenticated
  using (
    (user_id = (select auth.uid()) or gm_user_id = (select auth.uid()))
    and not (select private.is_api_client_request())
  );

create policy "Members can leave and game masters can remove members" on public.gm_group_member
  for delete to authenticated
  using (
    (user_id = (select auth.uid()) or gm_user_id = (select auth.uid()))
    and not (select private.is_api_client_request())
  );

-- Section: public functions
-- Joins the caller to a GM's group when the code matches, the GM holds the GAME-MASTER tier and
-- the group has room (99 members); false otherwise, without saying which check failed. Security
-- definer: the group's code is not readable by the joining user. The group row is locked so
-- concurrent joins cannot pass the cap.
create function private.join_gm_group(p_gm_user_id uuid, p_access_code text) returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
  group_code text;
begin
  if me is null or (select private.is_api_client_request()) or me = p_gm_user_id then
    return false;
  end if;
  if (select u.supporter_tier from public.public_user u where u.user_id = me) >= 4 then
    return false;
  end if;
  select g.access_code into group_code
  from public.gm_group g
  join public.public_user gm on gm.user_id = g.gm_user_id
  where g.gm_user_id = p_gm_user_id and gm.supporter_tier >= 4
  for update of g;
  if group_code is null or group_code <> p_access_code then
    return false;
  end if;
  if (
    select count(*) from public.gm_group_member m
    where m.gm_user_id = p_gm_user_id and m.user_id <> me
  ) >= 99 then
    return false;
  end if;
  insert into public.gm_group_member (user_id, gm_user_id)
  values (me, p_gm_user_id)
  on conflict (user_id) do update set gm_user_id = excluded.gm_user_id, added_at = now();
  return true;
end
$$;
grant execute on function private.join_gm_group(uuid, text) to authenticated;

-- Gives the calling GAME-MASTER supporter a new access code (creating the group on first use);
-- members stay. False when the caller does not hold the GAME-MASTER tier.
create function private.regenerate_gm_code() returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
begin
  if me is null or (select private.is_api_client_request()) then
    return false;
  end if;
  if coalesce((select u.supporter_tier from public.public_user u where u.user_id = me), 0) < 4 then
    return false;
  end if;
  insert into public.gm_group (gm_user_id, access_code)
  values (me, private.random_base36(12))
  on conflict (gm_user_id) do update
    set access_code = excluded.access_code, updated_at = now();
  return true;
end
$$;
grant execute on function private.regenerate_gm_code() to authenticated;

-- The caller's group members with the public part of their profiles; empty unless the caller holds
-- the GAME-MASTER tier. Security definer: members' profiles are not readable by other users.
create function private.gm_group_members()
returns table (user_id uuid, display_name text, image_url text, added_at timestamptz)
language sql stable security definer set search_path = '' as $$
  select m.user_id, u.display_name, u.image_url, m.added_at
  from public.gm_group_member m
  join public.public_user u on u.user_id = m.user_id
  where m.gm_user_id = (select auth.uid())
    and not (select private.is_api_client_request())
    and exists (
      select 1 from public.public_user gm
      where gm.user_id = m.gm_user_id and gm.supporter_tier >= 4
    )
  order by m.added_at, m.user_id
$$;
grant execute on function private.gm_group_members() to authenticated;
