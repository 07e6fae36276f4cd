-- The character and campaign policies run no function per row. They called security definer
-- helpers with the row's columns (private.can_read_character, can_write_character,
-- can_read_campaign, owns_character, owns_campaign), which Postgres never inlines: counting an
-- owner's 1,000 characters made 2,000 calls. Now the common cases are plain column conditions
-- (the owner, a public character) and what needs another table's rows is a set-returning helper
-- read once per statement (`x in (select private.helper())`, a hashed subplan), as Supabase's
-- row-level security guide advises; the questions about the caller alone are `(select ...)`.
-- Who may do what is unchanged: the policies say what the helpers said.
--
-- find-character's select list called private.details_with_client_access per row as well; the
-- grants it shows are now read once per statement (private.my_characters_client_access), which
-- that helper also reads, so the rule of who sees them stays in one place.

-- Section: helpers
-- The campaigns the caller owns.
create function private.my_campaign_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select c.id from public.campaign c where c.user_id = (select auth.uid())
$$;

-- The characters the caller owns.
create function private.my_character_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select c.id from public.character c where c.user_id = (select auth.uid())
$$;

-- The characters the calling API client holds a grant on (none for a signed-in user).
create function private.granted_character_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select g.character_id from public.character_grant g
  where g.client_id = (select private.request_client_id())
$$;

-- The API grants on each of the caller's characters that has any, as the web client reads them
-- under `details.api_clients` (`client_access` entries: `publicUserId` the client owner's profile
-- id, `clientId` the client's id, both strings; `addedAt` epoch milliseconds): to its owner only,
-- signed in (not through an API key). Volatile so that a RETURNING clause sees the grants its own
-- statement's trigger just wrote. Security definer: the clients and their owners' profiles belong
-- to other users.
create function private.my_characters_client_access()
returns table (character_id bigint, api_clients jsonb)
language sql volatile security definer set search_path = '' as $$
  select g.character_id, jsonb_build_object('client_access', jsonb_agg(jsonb_build_object(
           'publicUserId', u.id::text,
           'clientId', g.client_id::text,
           'addedAt', (extract(epoch from g.granted_at) * 1000)::bigint
         ) order by g.granted_at, g.client_id))
  from public.character_grant g
  join public.character c on c.id = g.character_id
  join public.api_client a on a.id = g.client_id
  join public.public_user u on u.user_id = a.user_id
  where c.user_id = (select auth.uid())
    and not (select private.is_api_client_request())
  group by g.character_id
$$;

-- One character's details as the caller sees them (the grants above under `api_clients`), for a
-- statement about one row (update-character's answer).
create or replace function private.details_with_client_access(
  p_character_id bigint, p_details jsonb
) returns jsonb
language sql volatile security definer set search_path = '' as $$
  select coalesce(
    (select jsonb_set(p_details, '{api_clients}', m.api_clients)
     from private.my_characters_client_access() m where m.character_id = p_character_id),
    p_details
  )
$$;

-- Section: policies
-- As private.can_read_campaign: its owner; players and admins, never through an API key.
drop policy "Campaigns are readable by their owner, players and admins" on public.campaign;
create policy "Campaigns are readable by their owner, players and admins" on public.campaign
  for select to authenticated
  using (
    user_id = (select auth.uid())
    or (
      not (select private.is_api_client_request())
      and (id in (select private.member_campaign_ids()) or (select private.is_admin()))
    )
  );

-- As private.owns_campaign.
drop policy "Campaign owners can withdraw join grants" on public.campaign_join_grant;
create policy "Campaign owners can withdraw join grants" on public.campaign_join_grant
  for delete to authenticated
  using (campaign_id in (select private.my_campaign_ids()));

-- As private.can_read_character: under an API key a grant for that client and character; else the
-- owner, anyone when public, the GM of its campaign, an admin.
drop policy "Characters are readable by owner, GM, admin, or all if public" on public.character;
create policy "Characters are readable by owner, GM, admin, or all if public" on public.character
  for select to authenticated, anon
  using (
    case when (select private.is_api_client_request())
      then id in (select private.granted_character_ids())
      else user_id = (select auth.uid())
        or coalesce(options -> 'is_public' = 'true'::jsonb, false)
        or campaign_id in (select private.my_campaign_ids())
        or (select private.is_admin())
    end
  );

-- As private.can_write_character: as reading, without the public clause. With no WITH CHECK,
-- Postgres checks the updated row against USING too.
drop policy "Characters are writable by their owner, GM and admins" on public.character;
create policy "Characters are writable by their owner, GM and admins" on public.character
  for update to authenticated
  using (
    case when (select private.is_api_client_request())
      then id in (select private.granted_character_ids())
      else user_id = (select auth.uid())
        or campaign_id in (select private.my_campaign_ids())
        or (select private.is_admin())
    end
  );

-- As private.owns_character, never through an API key.
drop policy "Character owners can read the grants on their characters" on public.character_grant;
create policy "Character owners can read the grants on their characters" on public.character_grant
  for select to authenticated
  using (
    not (select private.is_api_client_request())
    and character_id in (select private.my_character_ids())
  );

drop policy "Character owners can revoke client access" on public.character_grant;
create policy "Character owners can revoke client access" on public.character_grant
  for delete to authenticated
  using (
    not (select private.is_api_client_request())
    and character_id in (select private.my_character_ids())
  );

-- The row-level questions the policies no longer ask. can_write_character stays: update-character
-- asks it of the one row an update did not match, for its refusal's reason.
drop function private.can_read_character(bigint, uuid, bigint, jsonb);
drop function private.can_read_campaign(bigint, uuid);

-- Section: grants
grant execute on function private.my_campaign_ids() to anon, authenticated;
grant execute on function private.my_character_ids() to authenticated;
grant execute on function private.granted_character_ids() to anon, authenticated;
grant execute on function private.my_characters_client_access() to anon, authenticated;
