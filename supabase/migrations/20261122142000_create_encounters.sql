-- Encounters: a GM's combat trackers, private to their owner (players never see them).

-- Section: tables
create table public.encounter (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  icon text not null check (char_length(icon) <= 200),
  color text not null check (char_length(color) <= 100),
  campaign_id bigint references public.campaign (id) on delete set null,
  combatants jsonb not null check (jsonb_typeof(combatants) = 'object'),
  meta_data jsonb not null check (jsonb_typeof(meta_data) = 'object')
);

-- Section: indexes on policy columns
create index encounter_user_id_idx on public.encounter (user_id);
create index encounter_campaign_id_idx on public.encounter (campaign_id);

-- Section: grants
grant select, delete on public.encounter to authenticated;
grant insert (name, icon, color, campaign_id, combatants, meta_data)
  on public.encounter to authenticated;
grant update (name, icon, color, campaign_id, combatants, meta_data)
  on public.encounter to authenticated;

-- Section: triggers
-- A new encounter needs supporter level 1.
create function private.enforce_encounter_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if private.effective_tier(new.user_id) < 1 then
    raise exception 'Free accounts cannot create encounters'
      using detail = '{"required_tier": 1}';
  end if;
  return new;
end
$$;

create trigger enforce_encounter_tier before insert on public.encounter
  for each row execute function private.enforce_encounter_tier();

-- An encounter can be attached only to a campaign its owner runs.
create function private.vet_encounter_campaign() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.campaign_id is not null and not exists (
    select 1 from public.campaign c where c.id = new.campaign_id and c.user_id = new.user_id
  ) then
    raise exception 'You do not have access to this campaign';
  end if;
  return new;
end
$$;

create trigger vet_encounter_campaign before insert or update of campaign_id on public.encounter
  for each row execute function private.vet_encounter_campaign();

-- Section: policies
alter table public.encounter enable row level security;

create policy "Encounters are readable by their owner" on public.encounter
  for select to authenticated using (user_id = (select auth.uid()));

create policy "Users can create their own encounters" on public.encounter
  for insert to authenticated with check (user_id = (select auth.uid()));

create policy "Encounters can be edited by their owner" on public.encounter
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

create policy "Encounters can be deleted by their owner" on public.encounter
  for delete to authenticated using (user_id = (select auth.uid()));
