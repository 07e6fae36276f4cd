-- Every other table an account writes grows by at most account_growth_max_bytes a UTC day. Rows
-- were bounded only by the request body (1 MiB) and the rate budget (240 a minute): paid accounts
-- hold any number of characters, homebrew sources and records, campaigns and encounters, and an
-- upload stores 2 MiB, so one session could add hundreds of gigabytes a day. Growth is what a write
-- adds: a new row's size, an update's size over the row it replaces (saving a character again adds
-- nothing), an upload's file. Writes without a user (the moderation bot, migrations, the seed) are
-- not charged. Idempotency-Key answers and proposals have bounds of their own
-- (20261128000200_bound_account_storage.sql).

-- Section: limits

-- What an account's writes may add in one UTC day, in bytes of the rows' JSON text (50 MiB).
create function private.account_growth_max_bytes() returns bigint
language sql immutable set search_path = '' as $$ select 50 * 1024 * 1024::bigint $$;

-- Section: tables

-- What each account's writes added, per UTC day. Rows of earlier days are removed as writes go on.
create table private.account_growth (
  user_id uuid not null,
  day date not null,
  bytes bigint not null check (bytes >= 0),
  primary key (user_id, day)
);
alter table private.account_growth enable row level security;

-- Section: triggers

-- Charges a write's growth to the requesting account (an API client's owner for a key, as its
-- Idempotency-Key answers are: never the owner of a character the client was granted, whose day a
-- stranger's client could otherwise spend), and refuses it past the day's bound. The account's row
-- for the day is the lock: one account's growing writes count one after another.
create function private.charge_account_growth() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  account constant uuid := private.idempotency_account();
  today constant date := (now() at time zone 'utc')::date;
  grown bigint;
  total bigint;
begin
  if account is null then
    return new;
  end if;
  grown := octet_length(to_jsonb(new)::text);
  if tg_op = 'UPDATE' then
    grown := grown - octet_length(to_jsonb(old)::text);
  elsif tg_table_name = 'uploaded_file' then
    grown := grown + new.byte_size; -- the file itself, kept in Storage
  end if;
  if grown <= 0 then
    return new;
  end if;
  delete from private.account_growth g
  where g.ctid = any (array(
    select o.ctid from private.account_growth o
    where o.day < today - 1 limit 20 for update skip locked));
  insert into private.account_growth as g (user_id, day, bytes) values (account, today, grown)
  on conflict (user_id, day) do update set bytes = g.bytes + excluded.bytes
  returning g.bytes into total;
  if total > private.account_growth_max_bytes() then
    raise exception 'Storage limit reached: an account''s writes may add at most % MB a day; '
      'try again tomorrow (UTC)', private.account_growth_max_bytes() / 1024 / 1024;
  end if;
  return new;
end
$$;

-- Every table a signed-in request writes rows of its own to: the accounts, play and content
-- baselines' tables, and every content table as private.content_table lists them. Named to fire
-- last of each table's before-triggers (they fire by name), so it measures the row as stored.
do $$
declare
  t text;
begin
  for t in
    select unnest(array['public_user', 'gm_group', 'gm_group_member', 'api_client',
      'uploaded_file', 'campaign', 'campaign_join_grant', 'character', 'character_grant',
      'encounter', 'content_source'])
    union all
    select c.name from private.content_table c
  loop
    execute format('create trigger z_charge_account_growth before insert or update on public.%I '
      'for each row execute function private.charge_account_growth()', t);
  end loop;
end
$$;

-- Section: grants
revoke execute on function private.account_growth_max_bytes() from public;
revoke execute on function private.charge_account_growth() from public;
