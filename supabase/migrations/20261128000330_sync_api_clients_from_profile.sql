-- The web app's Developer settings (its account page) keep API clients as a list in the profile:
-- "+" adds an entry with a key the browser chose, Edit renames it or draws a new key, Delete drops
-- it, and the page sends the whole list with update-user. This makes that list real: update-user
-- passes it here, each key already hashed (the key itself never reaches the database), and the
-- caller's clients become exactly the listed ones. docs/web-client.md, "API clients from the
-- Developer page", says what the page shows.
--
-- An entry is the caller's client whose key it carries, else the caller's client of its `id`
-- (a new key on it replaces the old one, which then answers as a revoked client's), else, with a
-- key, a new client. An entry without a key that names none of the caller's clients is skipped;
-- the caller's clients no entry names are revoked. Security definer for the key table, which no
-- user may write; the same checks as private.create_api_client apply, and the client cap and the
-- column checks still hold.
create function private.sync_api_clients(p_clients jsonb) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
  entry jsonb;
  entry_hash text;
  client bigint;
  kept bigint[] := '{}';
begin
  if me is null or (select private.is_api_client_request()) then
    raise exception 'API clients can only be managed by a signed-in user';
  end if;
  if jsonb_typeof(p_clients) <> 'array' then
    raise exception 'Invalid value for api.clients: expected a list';
  end if;
  -- Saves of the same page (it sends the list again on every profile change) apply one by one.
  perform 1 from public.public_user u where u.user_id = me for update;
  for entry in select e.value from jsonb_array_elements(p_clients) e loop
    entry_hash := entry ->> 'key_hash';
    client := null;
    if entry_hash is not null then
      select k.client_id into client from private.api_key k
      join public.api_client c on c.id = k.client_id
      where k.key_hash = entry_hash and c.user_id = me;
    end if;
    if client is null and entry ->> 'id' ~ '^[0-9]{1,18}$' then
      select c.id into client from public.api_client c
      where c.id = (entry ->> 'id')::bigint and c.user_id = me;
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
      if exists (select from private.api_key k where k.key_hash = entry_hash) then
        raise exception 'API key already in use: draw a new one';
      end if;
      insert into public.api_client (user_id, name, description)
      values (me, entry ->> 'name', entry ->> 'description')
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
  delete from public.api_client c where c.user_id = me and c.id <> all (kept);
end
$$;

grant execute on function private.sync_api_clients(jsonb) to authenticated;
