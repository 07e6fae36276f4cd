-- Rules that TypeScript used to restate, now decided in SQL only: which sources are the official
-- default (one helper instead of four copies), and the API-key refusals of the character
-- endpoints, raised with the SQLSTATE that maps to HTTP 403 (PT403, see _shared/db_errors.ts).

-- Section: helpers
-- The content sources every caller sees by default: the official (ownerless) published ones.
-- Invoker rights: everyone may read these rows, so row-level security changes nothing here. No
-- `set search_path` (the name is qualified): that keeps the function inlinable, so a query that
-- calls it is planned exactly as if it held the subquery itself.
create or replace function private.official_source_ids() returns setof bigint
language sql stable as $$
  select s.id from public.content_source s where s.user_id is null and s.is_published
$$;
grant execute on function private.official_source_ids() to anon, authenticated, service_role;

-- A new character without enabled content sources gets the official published ones.
create or replace function private.fill_character_defaults() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not (new.content_sources ? 'enabled') then
    new.content_sources := new.content_sources || jsonb_build_object('enabled', (
      select coalesce(jsonb_agg(o.id order by o.id), '[]'::jsonb)
      from private.official_source_ids() o(id)
    ));
  end if;
  return new;
end
$$;

create or replace function private.search_ranked_ids(
  p_name text,
  p_prefix text,
  p_tsquery text,
  p_excluded text,
  p_sources bigint[],
  p_limit integer
) returns table (bucket text, id bigint, ord integer)
language plpgsql stable security definer set search_path = '' rows 260 as $$
declare
  visible bigint[];
  v_name text := lower(p_name);
  v_prefix text := lower(p_prefix);
  v_query tsquery := to_tsquery('english'::regconfig, p_tsquery);
  v_excluded tsquery := to_tsquery('english'::regconfig, p_excluded);
begin
  if v_name is null and v_query is null then
    return;
  end if;
  select coalesce(array_agg(r.id), '{}') into visible
  from private.readable_source_ids() r(id)
  where case
    when coalesce(cardinality(p_sources), 0) = 0 then r.id in (
      select o.id from private.official_source_ids() o(id))
    else r.id = any(p_sources)
  end;
  return query
    select 'ability_blocks', r.id, r.ord
    from private.search_ranked_ability_block(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'ancestries', r.id, r.ord
    from private.search_ranked_ancestry(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'archetypes', r.id, r.ord
    from private.search_ranked_archetype(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'backgrounds', r.id, r.ord
    from private.search_ranked_background(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'classes', r.id, r.ord
    from private.search_ranked_class(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'creatures', r.id, r.ord
    from private.search_ranked_creature(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'hazards', r.id, r.ord
    from private.search_ranked_hazard(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'items', r.id, r.ord
    from private.search_ranked_item(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'languages', r.id, r.ord
    from private.search_ranked_language(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'spells', r.id, r.ord
    from private.search_ranked_spell(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'traits', r.id, r.ord
    from private.search_ranked_trait(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'versatile_heritages', r.id, r.ord
    from private.search_ranked_versatile_heritage(
      visible, v_name, v_prefix, v_query, v_excluded, p_limit) r
    union all
    select 'class_archetypes', r.id, r.ord
    from private.search_ranked_class_archetype(
      visible, v_name, v_prefix, v_query, v_excluded, p_limit) r;
end
$$;

-- Takes the character out of the caller's campaign and withdraws its player's join grant, so the
-- player cannot walk straight back in. Security definer: a character that has left the GM's
-- campaign is no longer the GM's to read, so a plain UPDATE under row-level security cannot do it.
-- The checks below are the whole of what it allows (an API-key request also needs a grant on the
-- character, refused like every other character endpoint with 403).
create or replace function private.remove_from_campaign(p_character_id bigint, p_campaign_id bigint)
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
    raise exception using errcode = 'PT403', message = 'You do not have access to this character';
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

-- A new character belongs to no grant yet, so no API client could ever reach it: an API-key
-- request may not create one. The insert policy refuses it too; this answers with 403 before the
-- tier cap is counted (triggers fire in name order).
create or replace function private.block_api_client_inserts() returns trigger
language plpgsql set search_path = '' as $$
begin
  if (select private.is_api_client_request()) then
    raise exception using errcode = 'PT403', message = 'You do not have access to this character';
  end if;
  return new;
end
$$;

-- Section: triggers
drop trigger if exists block_api_client_inserts on public.character;
create trigger block_api_client_inserts before insert on public.character
  for each row execute function private.block_api_client_inserts();
