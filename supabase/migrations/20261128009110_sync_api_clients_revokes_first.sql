-- private.sync_api_clients (20261128000330_sync_api_clients_from_profile.sql) made the list's new
-- clients before revoking the ones no entry names, so at the ten-client cap one save that drops a
-- client and adds one (Delete, then "+" before the page's debounced save) was refused although the
-- list it asks for has ten. Now the listed clients are settled first, then the unnamed ones revoked,
-- then the new ones made; what each entry means is unchanged.

-- Section: helpers
create or replace function private.sync_api_clients(p_clients jsonb) returns void
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
