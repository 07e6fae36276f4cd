-- Removing a character from a campaign by the campaign's owner. A plain UPDATE cannot do it under
-- row-level security: the updated row must stay readable by the writer, and a character that has
-- left the GM's campaign is no longer the GM's to read.

-- Section: public functions
-- Takes the character out of the caller's campaign and withdraws its player's join grant, so the
-- player cannot walk straight back in. Security definer for the reason above; the checks below are
-- the whole of what it allows (an API-key request also needs a grant on the character).
create function private.remove_from_campaign(p_character_id bigint, p_campaign_id bigint)
returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  player uuid;
begin
  if not private.owns_campaign(p_campaign_id) then
    raise exception 'Campaign not found';
  end if;
  if (select private.is_api_client_request()) and not private.has_character_grant(p_character_id)
  then
    raise exception 'You do not have access to this character';
  end if;
  update public.character c set campaign_id = null
  where c.id = p_character_id and c.campaign_id = p_campaign_id
  returning c.user_id into player;
  if player is null then
    raise exception 'Character not in campaign';
  end if;
  delete from public.campaign_join_grant g
  where g.campaign_id = p_campaign_id and g.user_id = player;
end
$$;
grant execute on function private.remove_from_campaign(bigint, bigint) to authenticated;
