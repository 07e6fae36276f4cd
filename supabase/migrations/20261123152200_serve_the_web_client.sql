-- What the reference web client needs from the database: campaign descriptions as plain text, and
-- character grants written and read through `details.api_clients.client_access` while staying rows
-- of public.character_grant.

-- Section: tables
-- The web client stores a campaign's description as text; the interface's object form stays valid.
alter table public.campaign drop constraint campaign_description_check;
alter table public.campaign add constraint campaign_description_check
  check (jsonb_typeof(description) in ('object', 'string'));

-- Each AI generation a user asked for within the last hour: the per-user budget of
-- open-ai-request, counted here so that every token and isolate of one user shares it.
create table private.ai_request (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  requested_at timestamptz not null default now()
);

-- Section: indexes
create index ai_request_user_id_requested_at_idx on private.ai_request (user_id, requested_at);

-- Section: helpers
-- Spends one AI generation of the caller's budget: supporter level 1 (the reference's UI offers
-- its generators to supporters), at most 60 an hour. A user's claims are serialised by an advisory
-- lock so concurrent calls cannot pass the cap together. Security definer: the log is private.
create function private.claim_ai_request() returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  caller constant uuid := (select auth.uid());
begin
  if caller is null then
    raise exception 'User not found';
  end if;
  if private.effective_tier(caller) < 1 then
    raise exception 'User does not have access: AI generation requires supporter tier 1 or higher'
      using detail = '{"required_tier": 1}';
  end if;
  perform pg_advisory_xact_lock(hashtext('private.ai_request'), hashtext(caller::text));
  delete from private.ai_request r
  where r.user_id = caller and r.requested_at < now() - interval '1 hour';
  if (select count(*) from private.ai_request r where r.user_id = caller) >= 60 then
    raise exception 'Too many requests, please try again later.'
      using detail = '{"limit": 60, "window_seconds": 3600}';
  end if;
  insert into private.ai_request (user_id) values (caller);
end
$$;
grant execute on function private.claim_ai_request() to authenticated;

-- The API clients of p_owner that hold a grant on one of the caller's characters: what another
-- user's profile shows the caller under `api.clients`, so the web client's authorized-clients
-- section can name (and revoke) them. Names nothing the caller has not authorized. Security
-- definer: other users' clients are not otherwise readable.
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
grant execute on function private.clients_granted_to_caller(uuid) to authenticated;

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
-- anon too: signed-out callers read public characters through the same select.
grant execute on function private.details_with_client_access(bigint, jsonb) to anon, authenticated;

-- Section: triggers
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
