-- The rate limiter's database store: used when no Upstash store is configured, and while the one
-- configured does not answer. Every instance and worker shares it, so a bucket's budget is one
-- budget everywhere. It keeps @upstash/ratelimit's sliding window exactly (its
-- `slidingWindowLimitScript`): a count per key and fixed window, the previous window weighted by
-- how much of it still overlaps; tests/rate_limit_window_test.ts runs both on the same requests.
--
-- Unlogged: a count is worth nothing after a crash, and without WAL the autocommitted count a
-- request sends ahead of its transaction does not wait for a flush to disk.

create unlogged table private.rate_limit_hits (
  key text not null,
  -- The fixed window: epoch milliseconds divided by the window's length.
  fixed_window bigint not null,
  hits integer not null,
  primary key (key, fixed_window)
);
create index rate_limit_hits_fixed_window on private.rate_limit_hits (fixed_window);
revoke all on private.rate_limit_hits from public;

-- The window's verdict on a write, for a minute. A write's transaction travels right behind its
-- count, in the same write, and its first statement asks here (private.assert_within_budget)
-- instead of waiting for the count's answer: a refused write never runs, nor one whose count did
-- not complete, and an admitted one waits for no round trip of its own.
create unlogged table private.rate_limit_verdicts (
  request_id uuid primary key,
  admitted boolean not null,
  counted_at timestamptz not null default now()
);
create index rate_limit_verdicts_counted_at on private.rate_limit_verdicts (counted_at);
revoke all on private.rate_limit_verdicts from public;

-- Counts one request of `key` against `tokens` per `window_ms` at `now_ms`, as the library's
-- script does: refused (remaining -1, nothing counted) when the weighted previous window and the
-- current one hold `tokens` already; otherwise counted, and what is left after it. The upsert
-- takes the row's lock, so concurrent requests are counted one after another. Each row a call
-- adds drops up to two rows of windows past: stale rows never outnumber the live ones. The
-- verdict on a request that names its id is kept for private.assert_within_budget.
create function private.take_rate_limit(
  key text,
  tokens integer,
  window_ms integer,
  now_ms bigint default (extract(epoch from clock_timestamp()) * 1000)::bigint,
  request_id uuid default null
) returns table (remaining integer, reset_ms bigint)
language plpgsql volatile security definer set search_path = '' as $$
declare
  current_window bigint := floor(now_ms::float8 / window_ms)::bigint;
  in_previous integer;
  counted integer;
begin
  select h.hits into in_previous from private.rate_limit_hits h
  where h.key = take_rate_limit.key and h.fixed_window = current_window - 1;
  -- float8, as Lua's numbers: the same weighting rounds the same way.
  in_previous := floor((1 - (now_ms % window_ms)::float8 / window_ms) * coalesce(in_previous, 0));
  insert into private.rate_limit_hits as h (key, fixed_window, hits)
  select take_rate_limit.key, current_window, 1 where in_previous < tokens
  on conflict on constraint rate_limit_hits_pkey do update set hits = h.hits + 1
    where h.hits + in_previous < tokens
  returning h.hits into counted;
  if counted = 1 then
    delete from private.rate_limit_hits h where h.ctid = any(array(
      select s.ctid from private.rate_limit_hits s where s.fixed_window < current_window - 1
      limit 2 for update skip locked));
  end if;
  if request_id is not null then
    -- A request counts in each of its buckets: it is admitted only if every one admits it.
    insert into private.rate_limit_verdicts as v (request_id, admitted)
    values (take_rate_limit.request_id, counted is not null)
    on conflict on constraint rate_limit_verdicts_pkey
      do update set admitted = v.admitted and excluded.admitted;
    delete from private.rate_limit_verdicts v where v.ctid = any(array(
      select s.ctid from private.rate_limit_verdicts s
      where s.counted_at < now() - interval '1 minute' limit 2 for update skip locked));
  end if;
  remaining := case when counted is null then -1 else tokens - (counted + in_previous) end;
  reset_ms := (current_window + 1) * window_ms;
  return next;
end;
$$;
revoke all on function private.take_rate_limit(text, integer, integer, bigint, uuid) from public;
grant execute on function private.take_rate_limit(text, integer, integer, bigint, uuid)
  to api_authenticator;

-- Refuses the transaction of a request its count refused (SQLSTATE PT429, PostgREST's convention
-- for an HTTP status), or whose count did not complete (PT503): the first statement of a write
-- whose count travels ahead of it.
create function private.assert_within_budget(request_id uuid) returns void
language plpgsql stable security definer set search_path = '' as $$
declare
  admitted boolean;
begin
  select v.admitted into admitted from private.rate_limit_verdicts v
  where v.request_id = assert_within_budget.request_id;
  if not found then
    raise exception using errcode = 'PT503', message = 'The rate limit''s count did not complete';
  end if;
  if not admitted then
    raise exception using errcode = 'PT429', message = 'Rate limit exceeded';
  end if;
end;
$$;
revoke all on function private.assert_within_budget(uuid) from public;
grant execute on function private.assert_within_budget(uuid)
  to anon, authenticated, service_role;
