-- What the web client stores in content beyond the interface's fields, and the traits that
-- classes, ancestries, archetypes and versatile heritages carry of their own (docs/content.md,
-- "Linked traits"; docs/web-client.md).

-- Section: tables
-- `deprecated` on every content table and on content sources (creatures, hazards and class
-- archetypes have it already); a deprecated record is kept for old characters only.
do $$
declare
  t text;
begin
  foreach t in array array['content_source', 'trait', 'item', 'spell', 'class', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background']
  loop
    execute format(
      'alter table public.%I add column deprecated boolean not null default false', t);
  end loop;
end
$$;

alter table public.background add column artwork_url text;

-- Section: grants
-- Callers read and write the new columns like the others of their tables (the column grants of
-- 20261122130100_secure_content.sql name columns one by one).
grant select (deprecated), insert (deprecated), update (deprecated)
  on public.content_source to authenticated;
-- Signed-out visitors read content sources column by column too (the visitors' migration).
grant select (deprecated) on public.content_source to anon;
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background']
  loop
    execute format('grant insert (deprecated), update (deprecated) on public.%I to authenticated',
      t);
  end loop;
end
$$;
grant insert (artwork_url), update (artwork_url) on public.background to authenticated;

-- Section: helpers
-- The name of the trait a record of these tables carries, as the reference names it.
create function private.linked_trait_name(p_table text, p_name text) returns text
language sql immutable set search_path = '' as $$
  select case when p_table = 'archetype' then btrim(p_name) || ' Archetype' else btrim(p_name) end
$$;
grant execute on function private.linked_trait_name(text, text) to authenticated, service_role;

-- The description of such a trait while nobody has rewritten it.
create function private.linked_trait_description(p_table text, p_name text) returns text
language sql immutable set search_path = '' as $$
  select format('This indicates content from the %s %s.', lower(btrim(p_name)),
    replace(p_table, '_', ' '))
$$;
grant execute on function private.linked_trait_description(text, text)
  to authenticated, service_role;

-- The trait of a new record: the source's trait of that name (case-insensitive, the oldest), or a
-- new one flagged as the record's kind. Runs as the caller: making the trait needs the same write
-- access to the source as making the record.
create function private.find_or_make_linked_trait(p_table text, p_name text, p_source_id bigint)
returns bigint
language plpgsql volatile set search_path = '' as $$
declare
  v_name text := private.linked_trait_name(p_table, p_name);
  v_trait_id bigint;
begin
  select t.id into v_trait_id from public.trait t
  where t.content_source_id = p_source_id and lower(t.name) = lower(v_name)
  order by t.id limit 1;
  if v_trait_id is null then
    insert into public.trait (name, description, content_source_id, meta_data)
    values (v_name, private.linked_trait_description(p_table, p_name), p_source_id,
      jsonb_build_object(p_table || '_trait', true))
    returning id into v_trait_id;
  end if;
  return v_trait_id;
end
$$;
grant execute on function private.find_or_make_linked_trait(text, text, bigint)
  to authenticated, service_role;

-- Moderation's helpers (20261122200100_keep_linked_traits_in_step.sql) name traits the same way.
create or replace function private.link_new_record_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
begin
  execute format('select t.name from public.%I t where t.id = $1', p_table) into v_name using p_id;
  execute format('update public.%I t set trait_id = $1 where t.id = $2', p_table)
    using private.find_or_make_linked_trait(p_table, v_name, p_source_id), p_id;
end
$$;

create or replace function private.rename_linked_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
  v_trait_id bigint;
begin
  execute format('select t.name, t.trait_id from public.%I t where t.id = $1', p_table)
    into v_name, v_trait_id using p_id;
  update public.trait t set name = private.linked_trait_name(p_table, v_name)
  where t.id = v_trait_id and t.content_source_id = p_source_id;
  if not found then
    raise exception 'Content not found: trait % is not in content source %',
      coalesce(v_trait_id::text, 'null'), p_source_id;
  end if;
end
$$;

-- Section: triggers
-- A new class, ancestry, archetype or versatile heritage without a trait gets its own (the web
-- client sends `trait_id: -1`). An edit keeps the linked trait: `trait_id` null (or -1) leaves it
-- as it was, as the reference does. A rename renames the trait, and rewrites its description
-- while it is still the generated one, in the same statement. Updates made by a foreign key
-- action (the trait deleted: `on delete set null`) run nested and are left alone.
create function private.keep_linked_trait() returns trigger
language plpgsql set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    if new.trait_id is null then
      new.trait_id := private.find_or_make_linked_trait(tg_table_name, new.name,
        new.content_source_id);
    end if;
    return new;
  end if;
  if pg_trigger_depth() > 1 then
    return new;
  end if;
  if new.trait_id is null and old.trait_id is not null then
    new.trait_id := old.trait_id;
  end if;
  if new.name is distinct from old.name and new.trait_id is not null then
    update public.trait t
    set name = private.linked_trait_name(tg_table_name, new.name),
      description = case
        when t.description = private.linked_trait_description(tg_table_name, old.name)
        then private.linked_trait_description(tg_table_name, new.name)
        else t.description
      end
    where t.id = new.trait_id and t.content_source_id = new.content_source_id
      and lower(t.name) = lower(private.linked_trait_name(tg_table_name, old.name));
  end if;
  return new;
end
$$;

do $$
declare
  t text;
begin
  foreach t in array array['class', 'ancestry', 'archetype', 'versatile_heritage']
  loop
    execute format(
      'create trigger keep_linked_trait before insert or update on public.%I
       for each row execute function private.keep_linked_trait()', t);
  end loop;
end
$$;
