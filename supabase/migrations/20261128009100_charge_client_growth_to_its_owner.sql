-- A write through an API key is charged to the client's owner, as its Idempotency-Key answers are
-- (private.idempotency_account). The growth bound charged the request's user, which for a key
-- acting on a granted character is the character's owner: someone else's client could then spend
-- that owner's day on one character and leave every other write of theirs refused.

-- Section: triggers
create or replace function private.charge_account_growth() returns trigger
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
