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
