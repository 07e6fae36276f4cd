-- Play: campaigns and their join grants, characters and per-character API access grants, and
-- encounters. Who may read and write a character is decided here (helpers section,
-- private.can_read_character / can_write_character): by the owner, the owner of its campaign (GM),
-- admins, anyone when it is public, and for API-key requests only by a grant for that client and
-- character. Encounters are a GM's combat trackers, private to their owner.

-- Section: tables
create table public.campaign (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  -- The web client stores a description as text; the interface's object form stays valid.
  description jsonb not null default '{"contents": {}}'
    check (jsonb_typeof(description) in ('object', 'string')),
  -- Set on insert and by private.reset_campaign_key only (trigger and column grants).
  join_key text not null unique check (join_key ~ '^[0-9a-z]{6}-[0-9a-z]{6}$'),
  notes jsonb not null default '{}' check (jsonb_typeof(notes) = 'object'),
  recommended_options jsonb not null default '{}'
    check (jsonb_typeof(recommended_options) = 'object'),
  recommended_variants jsonb not null default '{}'
    check (jsonb_typeof(recommended_variants) = 'object'),
  recommended_content_sources jsonb not null default '{"enabled": []}'
    check (jsonb_typeof(recommended_content_sources) = 'object'),
  custom_operations jsonb not null default '[]' check (jsonb_typeof(custom_operations) = 'array'),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
);

-- A signed-in user who looked a campaign up by its join key may move a character into it within
-- the hour. Written only by private.find_campaign_by_join_key; removed when the key is reset.
create table public.campaign_join_grant (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  campaign_id bigint not null references public.campaign (id) on delete cascade,
  granted_at timestamptz not null default now(),
  primary key (user_id, campaign_id)
);

create table public.character (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  campaign_id bigint references public.campaign (id) on delete set null,
  name text not null default 'Unknown Wanderer' check (char_length(name) between 1 and 200),
  level integer not null default 1 check (level between 0 and 100),
  experience integer not null default 0,
  hero_points integer not null default 1,
  hp_current integer not null default 0,
  hp_temp integer not null default 0,
  stamina_current integer not null default 0,
  resolve_current integer not null default 0,
  inventory jsonb not null
    default '{"items": [], "coins": {"cp": 0, "sp": 0, "gp": 15, "pp": 0}}'
    check (jsonb_typeof(inventory) = 'object'),
  details jsonb not null default '{}' check (jsonb_typeof(details) = 'object'),
  notes jsonb not null default '{}' check (jsonb_typeof(notes) = 'object'),
  roll_history jsonb not null default '{}' check (jsonb_typeof(roll_history) = 'object'),
  spells jsonb not null default '{}' check (jsonb_typeof(spells) = 'object'),
  operation_data jsonb not null default '{}' check (jsonb_typeof(operation_data) = 'object'),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  options jsonb not null default '{}' check (jsonb_typeof(options) = 'object'),
  variants jsonb not null default '{}' check (jsonb_typeof(variants) = 'object'),
  companions jsonb not null default '{}' check (jsonb_typeof(companions) = 'object'),
  custom_operations jsonb not null default '[]' check (jsonb_typeof(custom_operations) = 'array'),
  -- Filled with the official published sources on insert when not given (trigger).
  content_sources jsonb not null default '{}' check (jsonb_typeof(content_sources) = 'object')
);

-- One row per API client per character; no row means no access. There is no grant for all of an
-- owner's characters.
create table public.character_grant (
  client_id bigint not null references public.api_client (id) on delete cascade,
  character_id bigint not null references public.character (id) on delete cascade,
  granted_at timestamptz not null default now(),
  primary key (client_id, character_id)
);

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

-- Section: indexes (policy columns)
create index campaign_user_id_idx on public.campaign (user_id);
create index campaign_join_grant_campaign_id_idx on public.campaign_join_grant (campaign_id);
create index character_user_id_idx on public.character (user_id);
create index character_campaign_id_idx on public.character (campaign_id);
create index character_grant_character_id_idx on public.character_grant (character_id);
create index encounter_user_id_idx on public.encounter (user_id);
create index encounter_campaign_id_idx on public.encounter (campaign_id);

-- Section: helpers
-- Whether the caller owns the campaign. Security definer (as all helpers below): policies of the
-- campaign and character tables refer to each other, and reading through them would recurse.
create function private.owns_campaign(p_campaign_id bigint) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.campaign c
    where c.id = p_campaign_id and c.user_id = (select auth.uid())
  )
$$;

-- Campaigns in which the caller plays a character.
create function private.member_campaign_ids() returns setof bigint
language sql stable security definer set search_path = '' as $$
  select distinct c.campaign_id from public.character c
  where c.user_id = (select auth.uid()) and c.campaign_id is not null
$$;

-- Whether the caller owns the character.
create function private.owns_character(p_character_id bigint) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.character c
    where c.id = p_character_id and c.user_id = (select auth.uid())
  )
$$;

-- Whether the calling API client holds a grant for the character.
create function private.has_character_grant(p_character_id bigint) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.character_grant g
    where g.client_id = (select private.request_client_id()) and g.character_id = p_character_id
  )
$$;

-- Who may read a character (arguments are the row's columns). An API-key request needs a grant
-- for that client and character, even for the key owner's own characters; a signed-in user reads
-- their own, those in campaigns they run, public ones, and an admin every one.
create function private.can_read_character(
  p_id bigint, p_user_id uuid, p_campaign_id bigint, p_options jsonb
) returns boolean
language sql stable security definer set search_path = '' as $$
  select case
    when (select private.is_api_client_request()) then private.has_character_grant(p_id)
    else p_user_id = (select auth.uid())
      or coalesce(p_options -> 'is_public' = 'true'::jsonb, false)
      or (p_campaign_id is not null and private.owns_campaign(p_campaign_id))
      or (select private.is_admin())
  end
$$;

-- Who may write a character: as reading, without the public clause.
create function private.can_write_character(p_id bigint, p_user_id uuid, p_campaign_id bigint)
returns boolean
language sql stable security definer set search_path = '' as $$
  select case
    when (select private.is_api_client_request()) then private.has_character_grant(p_id)
    else p_user_id = (select auth.uid())
      or (p_campaign_id is not null and private.owns_campaign(p_campaign_id))
      or (select private.is_admin())
  end
$$;

-- Who may read a campaign: its owner, players with a character in it, admins; an API-key request
-- only its own (the caller never acts on another user's data through a key).
create function private.can_read_campaign(p_id bigint, p_user_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select p_user_id = (select auth.uid())
    or (
      not (select private.is_api_client_request())
      and (p_id in (select private.member_campaign_ids()) or (select private.is_admin()))
    )
$$;

-- Whether the caller may put a character into the campaign: they own it, or looked it up by its
-- join key less than an hour ago.
create function private.may_join_campaign(p_campaign_id bigint) returns boolean
language sql stable security definer set search_path = '' as $$
  select private.owns_campaign(p_campaign_id) or exists (
    select 1 from public.campaign_join_grant g
    where g.user_id = (select auth.uid())
      and g.campaign_id = p_campaign_id
      and g.granted_at > now() - interval '1 hour'
  )
$$;

-- Looks a campaign up by its exact join key. A signed-in caller also gets (or refreshes) a join
-- grant. Security definer: the campaign is not otherwise readable by someone who only knows the key.
create function private.find_campaign_by_join_key(p_join_key text)
returns setof public.campaign
language plpgsql volatile security definer set search_path = '' as $$
begin
  if (select auth.uid()) is not null then
    insert into public.campaign_join_grant (user_id, campaign_id)
    select (select auth.uid()), c.id from public.campaign c where c.join_key = p_join_key
    on conflict (user_id, campaign_id) do update set granted_at = now();
  end if;
  return query select * from public.campaign c where c.join_key = p_join_key;
end
$$;

-- The join key of a campaign the caller owns; null for any other id (the column's grant leaves it
-- out: see the grants section).
create function private.campaign_join_key(p_campaign_id bigint) returns text
language sql stable security definer set search_path = '' as $$
  select c.join_key from public.campaign c
  where c.id = p_campaign_id and c.user_id = (select auth.uid())
$$;

-- Gives the caller's campaign a new join key; the old key and open join grants die at once,
-- members stay. Security definer: the key column is not writable by users.
create function private.reset_campaign_key(p_campaign_id bigint) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  new_key constant text := private.random_base36(6) || '-' || private.random_base36(6);
begin
  update public.campaign c set join_key = new_key
  where c.id = p_campaign_id and c.user_id = (select auth.uid());
  if not found then
    raise exception 'You do not have access to this campaign';
  end if;
  delete from public.campaign_join_grant g where g.campaign_id = p_campaign_id;
  return new_key;
end
$$;

-- Stores a grant for an API client on one of the caller's characters (idempotent). The client
-- must belong to p_user_id, as the authorization URL says. Security definer: another user's
-- clients are not readable by the caller.
create function private.grant_character_access(
  p_client_id bigint, p_user_id uuid, p_character_id bigint
) returns public.character_grant
language plpgsql volatile security definer set search_path = '' as $$
declare
  result public.character_grant;
begin
  if (select auth.uid()) is null or (select private.is_api_client_request()) then
    raise exception 'Character access can only be granted by a signed-in user';
  end if;
  if not private.owns_character(p_character_id) then
    raise exception 'You do not have access to this character';
  end if;
  if not exists (
    select 1 from public.api_client a where a.id = p_client_id and a.user_id = p_user_id
  ) then
    raise exception 'API client not found';
  end if;
  insert into public.character_grant (client_id, character_id)
  values (p_client_id, p_character_id)
  on conflict (client_id, character_id) do nothing;
  select * into result from public.character_grant g
  where g.client_id = p_client_id and g.character_id = p_character_id;
  return result;
end
$$;

-- The clients authorized on one of the caller's characters, with each client's name and its
-- owner's display name. Empty unless the caller owns the character. Security definer: the clients
-- and their owners' profiles belong to other users.
create function private.character_access(p_character_id bigint)
returns table (
  client_id bigint, client_name text, client_description text, owner_user_id uuid,
  owner_display_name text, granted_at timestamptz
)
language sql stable security definer set search_path = '' as $$
  select g.client_id, a.name, a.description, a.user_id, u.display_name, g.granted_at
  from public.character_grant g
  join public.character c on c.id = g.character_id
  join public.api_client a on a.id = g.client_id
  join public.public_user u on u.user_id = a.user_id
  where g.character_id = p_character_id
    and c.user_id = (select auth.uid())
    and not (select private.is_api_client_request())
  order by g.granted_at, g.client_id
$$;

-- What a consent screen shows about a client: its name and description and its owner's display
-- name, when the client belongs to p_user_id (as the authorization URL claims).
create function private.api_client_info(p_client_id bigint, p_user_id uuid)
returns table (
  client_id bigint, name text, description text, owner_user_id uuid, owner_display_name text
)
language sql stable security definer set search_path = '' as $$
  select a.id, a.name, a.description, a.user_id, u.display_name
  from public.api_client a
  join public.public_user u on u.user_id = a.user_id
  where a.id = p_client_id and a.user_id = p_user_id
    and (select auth.uid()) is not null
    and not (select private.is_api_client_request())
$$;

-- The API clients of p_owner that hold a grant on one of the caller's characters: what another
-- user's profile shows the caller under `api.clients`, so the web client's authorized-clients
-- section can name (and revoke) them. Names nothing the caller has not authorized (a signed-out
-- visitor, who authorized nothing, reads a public profile with none). Security definer: other
-- users' clients are not otherwise readable.
create function private.clients_granted_to_caller(p_owner uuid)
returns table (id bigint, name text, description text)
language sql stable security definer set search_path = '' as $$
  select a.id, a.name, a.description
  from public.api_client a
  where a.user_id = p_owner
    and not (select private.is_api_client_request())
    and exists (
      select 1 from public.character_grant g
      join public.character c on c.id = g.character_id
      where g.client_id = a.id and c.user_id = (select auth.uid())
    )
  order by a.id
$$;

-- A character's details as the caller sees them: for its owner (signed in, not through an API key)
-- with the grants on it under `api_clients.client_access`, as the web client's authorized-clients
-- section reads them (`publicUserId`: the client owner's profile id, `clientId`: the client's id,
-- both strings; `addedAt`: epoch milliseconds). Volatile so that a RETURNING clause sees the
-- grants its own statement's trigger just wrote. Security definer: the clients and their owners'
-- profiles belong to other users.
create function private.details_with_client_access(p_character_id bigint, p_details jsonb)
returns jsonb
language sql volatile security definer set search_path = '' as $$
  select case when access is null then p_details
         else jsonb_set(p_details, '{api_clients}', jsonb_build_object('client_access', access))
         end
  from (
    select jsonb_agg(jsonb_build_object(
             'publicUserId', u.id::text,
             'clientId', g.client_id::text,
             'addedAt', (extract(epoch from g.granted_at) * 1000)::bigint
           ) order by g.granted_at, g.client_id) as access
    from public.character_grant g
    join public.character c on c.id = g.character_id
    join public.api_client a on a.id = g.client_id
    join public.public_user u on u.user_id = a.user_id
    where g.character_id = p_character_id
      and c.user_id = (select auth.uid())
      and not (select private.is_api_client_request())
  ) grants
$$;

-- Takes the character out of the caller's campaign and withdraws its player's join grant, so the
-- player cannot walk straight back in. Security definer: a character that has left the GM's
-- campaign is no longer the GM's to read, so a plain UPDATE under row-level security cannot do it.
-- The checks below are the whole of what it allows (an API-key request also needs a grant on the
-- character, refused like every other character endpoint with 403).
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

-- Section: policies
alter table public.campaign enable row level security;
alter table public.campaign_join_grant enable row level security;
alter table public.character enable row level security;
alter table public.character_grant enable row level security;
alter table public.encounter enable row level security;

create policy "Campaigns are readable by their owner, players and admins" on public.campaign
  for select to authenticated using (private.can_read_campaign(id, user_id));

create policy "Users can create their own campaigns" on public.campaign
  for insert to authenticated with check (user_id = (select auth.uid()));

create policy "Campaigns can be edited by their owner" on public.campaign
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

create policy "Campaigns can be deleted by their owner" on public.campaign
  for delete to authenticated using (user_id = (select auth.uid()));

create policy "Campaign owners can withdraw join grants"
  on public.campaign_join_grant
  for delete to authenticated using (private.owns_campaign(campaign_id));

create policy "Characters are readable by owner, GM, admin, or all if public"
  on public.character
  for select to authenticated, anon using (private.can_read_character(id, user_id, campaign_id, options));

create policy "Users can create their own characters when signed in" on public.character
  for insert to authenticated
  with check (user_id = (select auth.uid()) and not (select private.is_api_client_request()));

-- The owner cannot change (column grants) and a new campaign is vetted by vet_character_campaign.
-- A GM taking a character out of their campaign goes through private.remove_from_campaign: the
-- updated row would no longer be theirs to read.
create policy "Characters are writable by their owner, GM and admins"
  on public.character
  for update to authenticated
  using (private.can_write_character(id, user_id, campaign_id))
  with check (private.can_write_character(id, user_id, campaign_id));

create policy "Characters can be deleted by their owner or an admin"
  on public.character
  for delete to authenticated
  using (
    (user_id = (select auth.uid()) or (select private.is_admin()))
    and not (select private.is_api_client_request())
  );

create policy "Character owners can read the grants on their characters"
  on public.character_grant
  for select to authenticated
  using (not (select private.is_api_client_request()) and private.owns_character(character_id));

create policy "Character owners can revoke client access" on public.character_grant
  for delete to authenticated
  using (not (select private.is_api_client_request()) and private.owns_character(character_id));

create policy "Encounters are readable by their owner" on public.encounter
  for select to authenticated using (user_id = (select auth.uid()));

create policy "Users can create their own encounters" on public.encounter
  for insert to authenticated with check (user_id = (select auth.uid()));

create policy "Encounters can be edited by their owner" on public.encounter
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

create policy "Encounters can be deleted by their owner" on public.encounter
  for delete to authenticated using (user_id = (select auth.uid()));

-- Section: triggers
-- A new campaign gets a fresh join key and needs supporter level 1.
create function private.before_campaign_insert() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_tier(new.user_id, 1, 'creating a campaign');
  new.join_key := private.random_base36(6) || '-' || private.random_base36(6);
  return new;
end
$$;

create trigger before_campaign_insert before insert on public.campaign
  for each row execute function private.before_campaign_insert();

-- Free and tier-1 accounts hold at most 6 characters. The owner's profile row is locked first, so
-- concurrent inserts for one owner count one after another and cannot pass the cap together.
create function private.enforce_character_cap() returns trigger
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

create trigger enforce_character_cap before insert on public.character
  for each row execute function private.enforce_character_cap();

-- A new character without enabled content sources gets the official published ones.
create function private.fill_character_defaults() returns trigger
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

create trigger fill_character_defaults before insert on public.character
  for each row execute function private.fill_character_defaults();

-- A character enters a campaign only if the caller owns it or holds a fresh join grant; otherwise
-- the old value is silently kept (the rest of the write goes through). Leaving always works.
create function private.vet_character_campaign() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.campaign_id is not null
    and (tg_op = 'INSERT' or new.campaign_id is distinct from old.campaign_id)
    and not private.may_join_campaign(new.campaign_id)
  then
    new.campaign_id := case when tg_op = 'INSERT' then null else old.campaign_id end;
  end if;
  return new;
end
$$;

create trigger vet_character_campaign before insert or update of campaign_id on public.character
  for each row execute function private.vet_character_campaign();

-- Every update moves updated_at forward (clock time, so it never goes back between transactions).
create function private.touch_character_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := greatest(clock_timestamp(), old.updated_at + interval '1 microsecond');
  return new;
end
$$;

create trigger touch_character_updated_at before update on public.character
  for each row execute function private.touch_character_updated_at();

-- A new character belongs to no grant yet, so no API client could ever reach it: an API-key
-- request may not create one. The insert policy refuses it too; this answers with 403 before the
-- tier cap is counted (triggers fire in name order).
create function private.block_api_client_inserts() returns trigger
language plpgsql set search_path = '' as $$
begin
  if (select private.is_api_client_request()) then
    raise exception using errcode = 'PT403', message = 'You do not have access to this character';
  end if;
  return new;
end
$$;

create trigger block_api_client_inserts before insert on public.character
  for each row execute function private.block_api_client_inserts();

-- Under an API key a character changes only as the consent screen says: its stats (hit points,
-- experience, hero points and similar values) and its inventory. Visibility, notes, campaign and
-- everything else stay the owner's to change in the app.
create function private.limit_api_client_character_writes() returns trigger
language plpgsql set search_path = '' as $$
declare
  allowed constant text[] := array[
    'level', 'experience', 'hp_current', 'hp_temp', 'hero_points', 'stamina_current',
    'resolve_current', 'inventory', 'updated_at'
  ];
  changed text[];
begin
  if not (select private.is_api_client_request()) then
    return new;
  end if;
  select array_agg(n.key order by n.key) into changed
  from jsonb_each(to_jsonb(new)) n
  join jsonb_each(to_jsonb(old)) o using (key)
  where n.value is distinct from o.value and not n.key = any (allowed);
  if changed is not null then
    raise exception 'API clients may change only a character''s stats and inventory: % cannot be changed with an API key',
      array_to_string(changed, ', ')
      using errcode = 'PT403';
  end if;
  return new;
end
$$;

create trigger limit_api_client_character_writes before update on public.character
  for each row execute function private.limit_api_client_character_writes();

-- The web client grants and revokes API access by writing `details.api_clients.client_access` (its
-- consent page adds an entry, its builder filters one out). Grants stay rows: this turns the list
-- into exactly those grant rows and never stores the block. Only the character's owner, signed in,
-- changes grants, and only on an existing character (a copied character gets none); anyone else's
-- block is dropped. An entry names a client by `clientId` and its owner by `publicUserId` (profile
-- id, or the owner's UUID as this service's authorization URL carries it); entries that name no
-- such client are skipped, so a stale entry cannot break an autosave. A block without
-- `client_access` changes nothing.
create function private.sync_character_grants_from_details() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  wanted constant jsonb := new.details -> 'api_clients' -> 'client_access';
  granted bigint[];
begin
  if not (new.details ? 'api_clients') then
    return new;
  end if;
  new.details := new.details - 'api_clients';
  if tg_op <> 'UPDATE'
    or new.user_id is distinct from (select auth.uid())
    or (select private.is_api_client_request())
    or jsonb_typeof(wanted) is distinct from 'array' then
    return new;
  end if;
  select coalesce(array_agg(distinct a.id), '{}') into granted
  from jsonb_array_elements(wanted) e(entry)
  join public.api_client a on a.id = case
    when e.entry ->> 'clientId' ~ '^[0-9]{1,18}$' then (e.entry ->> 'clientId')::bigint end
  join public.public_user u on u.user_id = a.user_id
  where jsonb_typeof(e.entry) = 'object'
    and (u.id::text = e.entry ->> 'publicUserId' or u.user_id::text = e.entry ->> 'publicUserId');
  delete from public.character_grant g
  where g.character_id = new.id and not (g.client_id = any (granted));
  insert into public.character_grant (client_id, character_id)
  select client_id, new.id from unnest(granted) as t(client_id)
  on conflict (client_id, character_id) do nothing;
  return new;
end
$$;

create trigger sync_character_grants_from_details
  before insert or update of details on public.character
  for each row execute function private.sync_character_grants_from_details();

-- A new encounter needs supporter level 1.
create function private.enforce_encounter_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_tier(new.user_id, 1, 'creating an encounter');
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

-- Section: grants
-- Tables: column grants keep ids, owners, keys and timestamps out of the user's hands.
-- A player reads the campaign they play in, but its join key lets anyone they hand it to move a
-- character into it: only the owner reads it. The column is left out of the select grant, so no
-- endpoint and no request through the hosted REST layer can select it; the owner reads it through
-- private.campaign_join_key, and whoever knows a key through private.find_campaign_by_join_key.
grant select (id, created_at, user_id, name, description, notes, recommended_options,
  recommended_variants, recommended_content_sources, custom_operations, meta_data)
  on public.campaign to authenticated;
grant delete on public.campaign to authenticated;
grant insert (name, description, notes, recommended_options, recommended_variants,
  recommended_content_sources, custom_operations, meta_data) on public.campaign to authenticated;
grant update (name, description, notes, recommended_options, recommended_variants,
  recommended_content_sources, custom_operations, meta_data) on public.campaign to authenticated;
grant delete on public.campaign_join_grant to authenticated;
grant select, delete on public.character to authenticated;
-- Signed-out visitors read public characters (the read policy decides which).
grant select on public.character to anon;
grant insert (campaign_id, name, level, experience, hero_points, hp_current, hp_temp,
  stamina_current, resolve_current, inventory, details, notes, roll_history, spells,
  operation_data, meta_data, options, variants, companions, custom_operations, content_sources)
  on public.character to authenticated;
grant update (campaign_id, name, level, experience, hero_points, hp_current, hp_temp,
  stamina_current, resolve_current, inventory, details, notes, roll_history, spells,
  operation_data, meta_data, options, variants, companions, custom_operations, content_sources)
  on public.character to authenticated;
grant select, delete on public.character_grant to authenticated;
grant select, delete on public.encounter to authenticated;
grant insert (name, icon, color, campaign_id, combatants, meta_data)
  on public.encounter to authenticated;
grant update (name, icon, color, campaign_id, combatants, meta_data)
  on public.encounter to authenticated;

-- Functions
-- anon: the character read policy calls these for signed-out visitors too.
grant execute on function private.owns_campaign(bigint) to anon, authenticated;
grant execute on function private.member_campaign_ids() to authenticated;
grant execute on function private.owns_character(bigint) to authenticated;
grant execute on function private.has_character_grant(bigint) to authenticated;
grant execute on function private.can_read_character(bigint, uuid, bigint, jsonb)
  to anon, authenticated;
grant execute on function private.can_write_character(bigint, uuid, bigint) to authenticated;
grant execute on function private.can_read_campaign(bigint, uuid) to authenticated;
grant execute on function private.may_join_campaign(bigint) to authenticated;
grant execute on function private.find_campaign_by_join_key(text) to anon, authenticated;
grant execute on function private.reset_campaign_key(bigint) to authenticated;
grant execute on function private.grant_character_access(bigint, uuid, bigint) to authenticated;
grant execute on function private.character_access(bigint) to authenticated;
grant execute on function private.api_client_info(bigint, uuid) to authenticated;
grant execute on function private.remove_from_campaign(bigint, bigint) to authenticated;
grant execute on function private.clients_granted_to_caller(uuid) to anon, authenticated;
grant execute on function private.campaign_join_key(bigint) to authenticated;
-- anon too: signed-out callers read public characters through the same select.
grant execute on function private.details_with_client_access(bigint, jsonb) to anon, authenticated;
