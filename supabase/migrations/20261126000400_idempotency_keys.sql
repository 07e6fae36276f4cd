-- Safe retries: the answer of a write sent with an Idempotency-Key, kept for 24 hours per caller
-- (the user, or for an API key its client), so a repeat gets the same answer without the work
-- being done twice. The row is written in the same transaction as the work: a request that failed
-- left neither, and a concurrent repeat waits on the row's key until the first commits.
create table private.idempotent_request (
  scope text not null,
  key text not null check (length(key) between 1 and 255),
  endpoint text not null,
  body_hash text not null,
  status smallint,
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (scope, key)
);
create index idempotent_request_created_at_idx on private.idempotent_request (created_at);

-- Whose key this is: the API client for an API-key request, else the signed-in user.
create function private.idempotency_scope() returns text
language sql stable set search_path = '' as $$
  select case
    when (select private.is_api_client_request()) then 'client:' || private.request_client_id()
    when (select auth.uid()) is not null then 'user:' || (select auth.uid())
  end
$$;

-- Claims a key for this request. Answers nothing when the request is the first (it goes on to do
-- the work); else the earlier request's endpoint, body hash and answer, or no answer with whether
-- it may still be coming (a minute after its commit it is taken as lost). Expired keys are removed
-- here, a few at a time and never waiting on rows another request holds, since there is no cron.
create function private.claim_idempotency_key(p_key text, p_endpoint text, p_body_hash text)
returns table (endpoint text, body_hash text, status smallint, answer jsonb, answering boolean)
language plpgsql security definer set search_path = '' as $$
declare
  caller constant text := private.idempotency_scope();
begin
  if caller is null then
    raise exception 'An Idempotency-Key needs a caller' using errcode = '42501';
  end if;
  delete from private.idempotent_request r
  where r.ctid = any (array(
    select o.ctid from private.idempotent_request o
    where o.created_at < now() - interval '24 hours' limit 20 for update skip locked));
  delete from private.idempotent_request r
  where r.scope = caller and r.key = p_key and r.created_at < now() - interval '24 hours';
  insert into private.idempotent_request (scope, key, endpoint, body_hash)
  values (caller, p_key, p_endpoint, p_body_hash)
  on conflict do nothing;
  if found then
    return;
  end if;
  return query
    select r.endpoint, r.body_hash, r.status, r.answer,
           r.created_at > now() - interval '1 minute'
    from private.idempotent_request r
    where r.scope = caller and r.key = p_key;
end
$$;

-- Keeps the answer of the request that claimed the key.
create function private.remember_idempotent_answer(p_key text, p_status smallint, p_answer jsonb)
returns void
language sql security definer set search_path = '' as $$
  update private.idempotent_request
  set status = p_status, answer = p_answer
  where scope = private.idempotency_scope() and key = p_key
$$;

revoke all on table private.idempotent_request from public, anon, authenticated, service_role;
revoke execute on function private.idempotency_scope() from public;
revoke execute on function private.claim_idempotency_key(text, text, text) from public;
revoke execute on function private.remember_idempotent_answer(text, smallint, jsonb) from public;
grant execute on function private.claim_idempotency_key(text, text, text) to authenticated;
grant execute on function private.remember_idempotent_answer(text, smallint, jsonb)
  to authenticated;
