-- Every supporter-tier cap now refuses with one form: "User does not have access: " and the reason,
-- plus data.required_tier (more-endpoints section 8), as the content-source cap already did. Clients
-- can match the prefix for every cap and still show the person a sentence that says what to do.
-- Only the raised text changes; each function keeps its trigger, owner and grants.

-- Section: triggers
-- A new campaign gets a fresh join key and needs supporter level 1.
create or replace function private.before_campaign_insert() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if private.effective_tier(new.user_id) < 1 then
    raise exception 'User does not have access: creating a campaign requires supporter tier 1 or higher'
      using detail = '{"required_tier": 1}';
  end if;
  new.join_key := private.random_base36(6) || '-' || private.random_base36(6);
  return new;
end
$$;

-- Free and tier-1 accounts hold at most 6 characters. The owner's profile row is locked first, so
-- concurrent inserts for one owner count one after another and cannot pass the cap together.
create or replace function private.enforce_character_cap() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if private.effective_tier(new.user_id) >= 2 then
    return new;
  end if;
  perform 1 from public.public_user u where u.user_id = new.user_id for no key update;
  if (select count(*) from public.character c where c.user_id = new.user_id) >= 6 then
    raise exception 'User does not have access: free accounts are limited to 6 characters'
      using detail = '{"required_tier": 2}';
  end if;
  return new;
end
$$;

-- A new encounter needs supporter level 1.
create or replace function private.enforce_encounter_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if private.effective_tier(new.user_id) < 1 then
    raise exception 'User does not have access: creating an encounter requires supporter tier 1 or higher'
      using detail = '{"required_tier": 1}';
  end if;
  return new;
end
$$;

-- Rows recorded with no signed-in user (maintenance) are not the caller's upload: no tier to check.
create or replace function private.enforce_upload_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is not null and not (select private.can_upload_public_files()) then
    raise exception 'User does not have access: uploading files requires supporter tier 1 or higher'
      using detail = '{"required_tier": 1}';
  end if;
  return new;
end
$$;
