-- The web app's Developer settings (its account page) keep API clients as a list in the profile:
-- "+" adds an entry with a key the browser chose, Edit renames it or draws a new key, Delete drops
-- it, and the page sends the whole list with update-user. This makes that list real: update-user
-- passes it here, each key already hashed (the key itself never reaches the database), and the
-- caller's clients become exactly the listed ones. docs/web-client.md, "API clients from the
-- Developer page", says what the page shows.
--
-- An entry is the caller's client whose key it carries, else the caller's client of its `id` (the
-- client's own id, or the id the page drew for it), else, with a key, a new client. A new key on
-- a listed client replaces the old one, which then answers as a revoked client's. An entry without a key that names none of the caller's clients is skipped;
-- the caller's clients no entry names are revoked. Security definer for the key table, which no
-- user may write; the same checks as private.create_api_client apply, and the client cap and the
-- column checks still hold.
-- Section: tables
-- The id the page drew for a client it made (8 hex characters): until the page is reloaded it shows
-- the client under that id, in the authorization URL too, so a consent given through that URL
-- names the client by it.
alter table public.api_client add column page_id text
  check (page_id ~ '^[0-9A-Za-z_-]{1,36}$');
alter table public.api_client add constraint api_client_page_id_unique unique (user_id, page_id);

-- Section: helpers
create function private.sync_api_clients(p_clients jsonb) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
  entry jsonb;
  entry_hash text;
  client bigint;
  kept bigint[] := '{}';
  unmatched jsonb[] := '{}';
  pass integer;
begin
  if me is null or (select private.is_api_client_request()) then
    raise exception 'API clients can only be managed by a signed-in user';
  end if;
  if jsonb_typeof(p_clients) <> 'array' then
    raise exception 'Invalid value for api.clients: expected a list';
  end if;
  -- Saves of the same page (it sends the list again on every profile change) apply one by one.
  perform 1 from public.public_user u where u.user_id = me for update;
  -- Pass 1 settles the entries that name one of the caller's clients; pass 2, after the unnamed
  -- clients are revoked, makes the rest (an entry may then name a client pass 2 made just before).
  for pass in 1..2 loop
    if pass = 2 then
      delete from public.api_client c where c.user_id = me and c.id <> all (kept);
    end if;
    for entry in
      select e.value from jsonb_array_elements(p_clients) e where pass = 1
      union all
      select u.value from unnest(unmatched) u(value) where pass = 2
    loop
      entry_hash := entry ->> 'key_hash';
      client := null;
      if entry_hash is not null then
        select k.client_id into client from private.api_key k
        join public.api_client c on c.id = k.client_id
        where k.key_hash = entry_hash and c.user_id = me;
      end if;
      if client is null and entry ->> 'id' is not null then
        select c.id into client from public.api_client c
        where c.user_id = me and (c.page_id = entry ->> 'id' or c.id = case
          when entry ->> 'id' ~ '^[0-9]{1,18}$' then (entry ->> 'id')::bigint end);
        if client is not null and entry_hash is not null then
          if exists (select from private.api_key k where k.key_hash = entry_hash) then
            raise exception 'API key already in use: draw a new one';
          end if;
          update private.api_key k set client_id = null where k.client_id = client;
          insert into private.api_key (key_hash, user_id, client_id) values (entry_hash, me, client);
        end if;
      end if;
      if client is null then
        continue when entry_hash is null;
        if pass = 1 then
          unmatched := unmatched || entry;
          continue;
        end if;
        if exists (select from private.api_key k where k.key_hash = entry_hash) then
          raise exception 'API key already in use: draw a new one';
        end if;
        insert into public.api_client (user_id, name, description, page_id)
        values (me, entry ->> 'name', entry ->> 'description', case
          when entry ->> 'id' ~ '^[0-9A-Za-z_-]{1,36}$' then entry ->> 'id' end)
        returning id into client;
        insert into private.api_key (key_hash, user_id, client_id) values (entry_hash, me, client);
      else
        update public.api_client c
        set name = entry ->> 'name', description = entry ->> 'description'
        where c.id = client
          and (c.name, c.description) is distinct from (entry ->> 'name', entry ->> 'description');
      end if;
      kept := kept || client;
    end loop;
  end loop;
end
$$;

grant execute on function private.sync_api_clients(jsonb) to authenticated;

-- Section: triggers
-- A consent entry (`details.api_clients.client_access`, docs/characters.md) names its client by the
-- client's id, or by the id the Developer page drew for it: the rest is as before.
create or replace function private.sync_character_grants_from_details() returns trigger
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
    or a.page_id = e.entry ->> 'clientId'
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
