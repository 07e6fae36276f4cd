-- Storage per account is bounded over time. Two write paths kept whatever an account sent, for as
-- long as it liked: the answers kept for Idempotency-Keys (20 writes of 800 KB kept 15.6 MB for a
-- day, and at 240 calls a minute one session could keep gigabytes an hour), and content proposals
-- (no cap, kept for ever). Each bound is one function below, the only place its number is written.

-- Section: limits

-- The answers an account may keep under Idempotency-Keys at once, in bytes of their JSON text
-- (20 MiB): an answer is kept 24 hours, so this is also the most kept per account per day.
create function private.idempotent_answers_max_bytes() returns bigint
language sql immutable set search_path = '' as $$ select 20 * 1024 * 1024::bigint $$;

-- The proposals an account may make in any 24 hours.
create function private.content_updates_per_day() returns integer
language sql immutable set search_path = '' as $$ select 30 $$;

-- The largest proposal, in bytes of its data's JSON text (256 KiB): larger than any whole record
-- the web client sends, far smaller than a request body (1 MiB).
create function private.content_update_max_bytes() returns integer
language sql immutable set search_path = '' as $$ select 256 * 1024 $$;

-- Section: tables

-- Whose answer it is (the user, or for an API key the client's owner) and its size, so that an
-- account's kept answers are summed from an index. Rows kept before this migration have neither
-- and expire within a day.
alter table private.idempotent_request
  add column account uuid,
  add column answer_bytes integer not null default 0 check (answer_bytes >= 0);

-- Section: indexes
create index idempotent_request_account_idx on private.idempotent_request (account, created_at)
  where account is not null;
create index content_update_user_id_created_at_idx on public.content_update (user_id, created_at);

-- Section: helpers

-- The account an Idempotency-Key's answer is charged to: an API client's owner (not the owner of a
-- character the client acts on, who could otherwise be filled up by someone else's client), else
-- the signed-in user.
create function private.idempotency_account() returns uuid
language sql stable security definer set search_path = '' as $$
  select case
    when (select private.is_api_client_request()) then
      (select c.user_id from public.api_client c where c.id = (select private.request_client_id()))
    else (select auth.uid())
  end
$$;

-- Refuses a new key while the account's kept answers, with `p_adding` more, would pass the bound.
-- The account's profile row is locked first, so concurrent writes of one account count one after
-- another and cannot pass the bound together.
create function private.check_idempotent_answers_room(p_account uuid, p_adding bigint)
returns void
language plpgsql security definer set search_path = '' as $$
begin
  perform 1 from public.public_user u where u.user_id = p_account for no key update;
  if (select coalesce(sum(r.answer_bytes), 0) from private.idempotent_request r
      where r.account = p_account and r.created_at > now() - interval '24 hours') + p_adding
      > private.idempotent_answers_max_bytes() then
    raise exception 'Idempotency-Key limit reached: an account may keep at most % MB of answers '
      'for 24 hours; send this write without an Idempotency-Key, or later',
      private.idempotent_answers_max_bytes() / 1024 / 1024
      using detail = json_build_object(
        'field', 'Idempotency-Key', 'max_bytes', private.idempotent_answers_max_bytes())::text;
  end if;
end
$$;

-- Section: public functions

-- As before (accounts baseline), and a new key is charged to its account: refused at once when the
-- account's kept answers are already at the bound. A repeat of a kept key is answered as before.
create or replace function private.claim_idempotency_key(
  p_key text, p_endpoint text, p_body_hash text
)
returns table (endpoint text, body_hash text, status smallint, answer jsonb, answering boolean)
language plpgsql security definer set search_path = '' as $$
declare
  caller constant text := private.idempotency_scope();
  charged constant uuid := private.idempotency_account();
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
  insert into private.idempotent_request (scope, key, endpoint, body_hash, account)
  values (caller, p_key, p_endpoint, p_body_hash, charged)
  on conflict do nothing;
  if found then
    perform private.check_idempotent_answers_room(charged, 1);
    return;
  end if;
  return query
    select r.endpoint, r.body_hash, r.status, r.answer,
           r.created_at > now() - interval '1 minute'
    from private.idempotent_request r
    where r.scope = caller and r.key = p_key;
end
$$;

-- Keeps the answer of the request that claimed the key, when it fits the account's bound; else the
-- write is refused with its transaction (the answer is kept with the COMMIT), so what an account
-- keeps never passes the bound.
create or replace function private.remember_idempotent_answer(
  p_key text, p_status smallint, p_answer jsonb
)
returns void
language plpgsql security definer set search_path = '' as $$
declare
  caller constant text := private.idempotency_scope();
  bytes constant integer := octet_length(p_answer::text);
  charged uuid;
begin
  select r.account into charged from private.idempotent_request r
  where r.scope = caller and r.key = p_key;
  if charged is not null then
    perform private.check_idempotent_answers_room(charged, bytes);
  end if;
  update private.idempotent_request
  set status = p_status, answer = p_answer, answer_bytes = bytes
  where scope = caller and key = p_key;
end
$$;

-- Section: triggers

-- A proposal is at most content_update_max_bytes, and an account makes at most
-- content_updates_per_day in any 24 hours (its profile row locked first, as the character cap).
create function private.enforce_content_update_bounds() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if octet_length(new.data::text) > private.content_update_max_bytes() then
    raise exception 'Content update too large: its data may be at most % KB',
      private.content_update_max_bytes() / 1024
      using detail = json_build_object('field', 'data')::text;
  end if;
  perform 1 from public.public_user u where u.user_id = new.user_id for no key update;
  if (select count(*) from public.content_update c
      where c.user_id = new.user_id and c.created_at > now() - interval '24 hours')
      >= private.content_updates_per_day() then
    raise exception 'Content update limit reached: an account may propose at most % changes in '
      '24 hours; try again later', private.content_updates_per_day();
  end if;
  return new;
end
$$;

create trigger enforce_content_update_bounds before insert on public.content_update
  for each row execute function private.enforce_content_update_bounds();

-- Section: grants
revoke execute on function private.idempotent_answers_max_bytes() from public;
revoke execute on function private.content_updates_per_day() from public;
revoke execute on function private.content_update_max_bytes() from public;
revoke execute on function private.idempotency_account() from public;
revoke execute on function private.check_idempotent_answers_room(uuid, bigint) from public;
revoke execute on function private.enforce_content_update_bounds() from public;
