-- A BEFORE trigger sees generated columns of NEW as not yet computed, so comparing whole rows
-- called every edit a change once a table gained a generated column (the search vectors).
-- updated_at now compares the rows without their generated columns, and keeps an explicit bump.

-- Section: triggers
create or replace function private.touch_updated_at() returns trigger
language plpgsql set search_path = '' as $$
declare
  generated text[] := array(
    select a.attname::text from pg_catalog.pg_attribute a
    where a.attrelid = tg_relid and a.attgenerated <> '' and not a.attisdropped
  );
begin
  -- Only our own triggers and maintenance can write updated_at (callers have no grant on it);
  -- a value they set, such as a source bump, stands.
  if new.updated_at is distinct from old.updated_at then
    return new;
  end if;
  if (to_jsonb(new) - generated - 'updated_at') is distinct from
     (to_jsonb(old) - generated - 'updated_at') then
    new.updated_at := now();
  else
    new.updated_at := old.updated_at;
  end if;
  return new;
end
$$;
