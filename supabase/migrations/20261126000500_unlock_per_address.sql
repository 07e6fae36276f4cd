-- Wrong access keys are counted per address as well as per user: five wrong keys for one source in
-- 15 minutes from one client address stop further guesses from that address, whatever accounts
-- they come from (before, N accounts gave 5N guesses every 15 minutes). Someone holding the right
-- key is refused only while sharing the guesser's address, and only until the window passes; a
-- source once unlocked stays readable to that user.
alter table private.content_source_unlock_failure add column address text;
create index content_source_unlock_failure_address_idx
  on private.content_source_unlock_failure (content_source_id, address, failed_at);

drop function private.unlock_content_source(bigint, text);

create function private.unlock_content_source(
  p_source_id bigint,
  p_access_key text,
  p_address text
) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  src public.content_source;
  caller uuid := (select auth.uid());
begin
  if caller is null then
    raise exception 'User not found';
  end if;
  select * into src from public.content_source s
  where s.id = p_source_id and (s.is_published or s.user_id = caller);
  if not found then
    raise exception 'Content source not found';
  end if;
  if not src.require_key or src.user_id is not distinct from caller then
    return 'unlocked';
  end if;
  -- Guesses at one source are counted one at a time, across users and addresses.
  perform pg_advisory_xact_lock(hashtextextended('unlock:' || p_source_id, 0));
  delete from private.content_source_unlock_failure f
  where f.content_source_id = p_source_id and f.failed_at < now() - interval '15 minutes';
  if (select count(*) from private.content_source_unlock_failure f
      where f.content_source_id = p_source_id and f.user_id = caller) >= 5
    or (p_address is not null and (select count(*) from private.content_source_unlock_failure f
      where f.content_source_id = p_source_id and f.address = p_address) >= 5) then
    raise exception 'Too many wrong access keys for this content source: try again in 15 minutes';
  end if;
  if coalesce(src.keys ->> 'access_key', '') = '' or src.keys ->> 'access_key' <> p_access_key then
    insert into private.content_source_unlock_failure (user_id, content_source_id, address)
    values (caller, p_source_id, p_address);
    return 'invalid';
  end if;
  insert into private.content_source_unlock (user_id, content_source_id)
  values (caller, p_source_id)
  on conflict do nothing;
  return 'unlocked';
end
$$;
revoke execute on function private.unlock_content_source(bigint, text, text) from public;
grant execute on function private.unlock_content_source(bigint, text, text) to authenticated;
