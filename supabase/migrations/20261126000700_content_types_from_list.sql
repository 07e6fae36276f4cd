-- Every per-type part of the content tables is made from the one list, private.content_table
-- (issue #25). The baselines' loops made policies, triggers, grants and search indexes from it
-- once, but the source and name indexes, the calls of private.search_ranked_ids and the two type
-- lists of moderation were written out per type. Here they are made by two functions that read the
-- list, so a new content type is its table, its row of the list and one call:
--
--   select private.provision_content_table('<table>');
--
-- private.provision_content_table(t) makes (or makes again) the generated parts of one listed
-- table: row-level security and its four source policies, the updated_at and source-bump
-- triggers, the column grants, the stored search document, the source, name and search indexes
-- and the table's ranked-search helper; then private.build_content_lists() rewrites the two
-- functions that name every type: private.search_ranked_ids (one call per table) and
-- private.content_update_table (the types a content update may name). Both run as the migrations'
-- role only (no grant). Applied below to the thirteen tables already listed, they make exactly what
-- the baselines made: the same policies, triggers, grants, columns and indexes, the same search
-- results in the same order, the same types accepted by moderation.
--
-- What stays written per type is what only some types have: extra indexes (traits, prerequisites,
-- class, heritage), the linked-trait and reference triggers, and the TypeScript registry entry
-- (shared/content_types.ts, supabase/functions/_shared/content/tables.ts), which
-- tests/content_registry_sql_test.ts compares with this list.

-- Section: tables
-- `search_bucket`: the bucket search-data's simple mode answers the table's rows in (the
-- registry's `searchBucket`). `moderated`: content updates (community errata) may name the type;
-- hazards are not a type of the interface's ContentType, so they may not.
alter table private.content_table
  add column search_bucket text unique,
  add column moderated boolean not null default true;
update private.content_table c set
  search_bucket = case c.name
    when 'ability_block' then 'ability_blocks'
    when 'ancestry' then 'ancestries'
    when 'archetype' then 'archetypes'
    when 'background' then 'backgrounds'
    when 'class' then 'classes'
    when 'class_archetype' then 'class_archetypes'
    when 'creature' then 'creatures'
    when 'hazard' then 'hazards'
    when 'item' then 'items'
    when 'language' then 'languages'
    when 'spell' then 'spells'
    when 'trait' then 'traits'
    when 'versatile_heritage' then 'versatile_heritages'
  end,
  moderated = c.name <> 'hazard';
alter table private.content_table alter column search_bucket set not null;

-- content_update's check on `type` asks private.content_update_table (moderation baseline,
-- rewritten from the list below), so the types moderation accepts are written in one place. The
-- roles that insert or update proposals (authenticated, and the owner for the bot's definer
-- functions) may call it.
alter table public.content_update
  drop constraint content_update_type_check,
  add constraint content_update_type_check check (private.content_update_table(type) is not null);

-- Section: helpers
-- The functions naming every content type, rewritten from the list.
--   private.content_update_table(type): the table a content update's type is stored in (the API's
--     name with `_` for `-`), or null for a type moderation does not accept: the moderated content
--     tables and `content-source`. It is also content_update's check on `type` (below), so the
--     list is written in one place. Immutable: its body is a constant, rewritten only here.
--   private.search_ranked_ids: simple mode in one call (search baseline), one static call of each
--     table's private.search_ranked_<table> (static SQL keeps each call's plan), answered under the
--     table's search bucket. The order of the calls does not matter: search-data orders each
--     bucket by the rank each call returns.
create function private.build_content_lists() returns void
language plpgsql volatile set search_path = '' as $build$
declare
  types text;
  calls text;
  tables integer;
begin
  select string_agg(quote_literal(x.type), ', ' order by x.type) into types
  from (
    select replace(c.name, '_', '-') as type from private.content_table c where c.moderated
    union all
    select 'content-source'
  ) x;
  execute format($fn$
    create or replace function private.content_update_table(p_type text) returns text
    language sql immutable set search_path = '' as $body$
      select case when p_type in (%s) then replace(p_type, '-', '_') end
    $body$
  $fn$, types);

  select string_agg(
      format('select %L, r.id, r.ord
      from private.%I(visible, v_name, v_prefix, v_query, v_excluded, p_limit) r',
        c.search_bucket, 'search_ranked_' || c.name),
      E'\n      union all\n      ' order by c.name),
    count(*)
  into calls, tables
  from private.content_table c;
  execute format($fn$
    create or replace function private.search_ranked_ids(
      p_name text,
      p_prefix text,
      p_tsquery text,
      p_excluded text,
      p_sources bigint[],
      p_limit integer
    ) returns table (bucket text, id bigint, ord integer)
    language plpgsql stable security definer set search_path = '' rows %s as $body$
    declare
      visible bigint[];
      v_name text := lower(p_name);
      v_prefix text := lower(p_prefix);
      v_query tsquery := to_tsquery('english'::regconfig, p_tsquery);
      v_excluded tsquery := to_tsquery('english'::regconfig, p_excluded);
    begin
      if v_name is null and v_query is null then
        return;
      end if;
      if coalesce(cardinality(p_sources), 0) = 0 then
        select coalesce(array_agg(o.id), '{}') into visible
        from private.official_source_ids() o(id);
      else
        select coalesce(array_agg(s.id), '{}') into visible
        from public.content_source s
        where s.id = any(p_sources)
          and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
            (select auth.uid()));
      end if;
      return query
      %s;
    end
    $body$
  $fn$, tables * 20, calls);
end
$build$;

-- The generated parts of one listed content table, made as the baselines made them for the first
-- thirteen; what exists already is kept (indexes, the search document) or made again the same way
-- (policies, triggers, grants, the search helper). Then the type lists are rewritten. Only for
-- tables of private.content_table, so a name reaches format() only from that list.
create function private.provision_content_table(p_table text) returns void
language plpgsql volatile set search_path = '' as $provision$
declare
  entry private.content_table;
  relation regclass := to_regclass(format('public.%I', p_table));
  readable text;
  writable text;
  insertable text;
  updatable text;
  col text;
  index_name text;
  index_sql text;
begin
  select * into entry from private.content_table c where c.name = p_table;
  if not found or relation is null then
    raise exception 'Invalid value: % is not a table of public listed in private.content_table',
      p_table;
  end if;

  -- Policies: who may read or write a record is who may read or write its own source (content
  -- baseline, policies section).
  readable := private.readable_source_condition(format('%I.content_source_id', p_table));
  writable := format(
    'exists (select 1 from public.content_source s where s.id = %I.content_source_id
       and private.source_is_writable(s.user_id, (select auth.uid())))', p_table);
  execute format('alter table public.%I enable row level security', p_table);
  execute format('drop policy if exists "Content of readable sources can be read" on public.%I',
    p_table);
  execute format(
    'create policy "Content of readable sources can be read" on public.%I
       for select to authenticated, anon using (%s)', p_table, readable);
  execute format(
    'drop policy if exists "Content can be added to writable sources" on public.%I', p_table);
  execute format(
    'create policy "Content can be added to writable sources" on public.%I
       for insert to authenticated with check (%s)', p_table, writable);
  execute format(
    'drop policy if exists "Content of writable sources can be edited" on public.%I', p_table);
  execute format(
    'create policy "Content of writable sources can be edited" on public.%I
       for update to authenticated using (%s) with check (%s)', p_table, writable, writable);
  execute format(
    'drop policy if exists "Content of writable sources can be deleted" on public.%I', p_table);
  execute format(
    'create policy "Content of writable sources can be deleted" on public.%I
       for delete to authenticated using (%s)', p_table, writable);

  -- Triggers: updated_at moves on a real change; any change bumps the source.
  execute format(
    'create or replace trigger touch_updated_at before update on public.%I
       for each row execute function private.touch_updated_at()', p_table);
  execute format(
    'create or replace trigger bump_content_source after insert or delete on public.%I
       for each row execute function private.bump_content_source()', p_table);
  execute format(
    'create or replace trigger bump_content_source_on_edit after update on public.%I
       for each row when (old.* is distinct from new.*)
       execute function private.bump_content_source()', p_table);

  -- The stored full-text document (search baseline): name (weight A), and description (weight B)
  -- when the list searches it.
  if not exists (
    select from pg_catalog.pg_attribute a
    where a.attrelid = relation and a.attname = 'search_vector' and not a.attisdropped
  ) then
    execute format(
      'alter table public.%I add column search_vector tsvector generated always as (
         setweight(to_tsvector(''english''::regconfig, name), ''A'')%s) stored',
      p_table,
      case when 'description' = any (entry.searched_columns)
        then ' || setweight(to_tsvector(''english''::regconfig, description), ''B'')' else '' end);
  end if;

  -- Grants (content baseline): read all columns (signed-out visitors too); insert all but id and
  -- timestamps; update those minus content_source_id; delete. Generated columns get none.
  select string_agg(quote_ident(a.attname), ', ' order by a.attnum)
      filter (where a.attname not in ('id', 'created_at', 'updated_at')),
    string_agg(quote_ident(a.attname), ', ' order by a.attnum)
      filter (where a.attname not in ('id', 'created_at', 'updated_at', 'content_source_id'))
  into insertable, updatable
  from pg_catalog.pg_attribute a
  where a.attrelid = relation and a.attnum > 0 and not a.attisdropped and a.attgenerated = '';
  execute format('grant select, delete on public.%I to authenticated', p_table);
  execute format('grant select on public.%I to anon', p_table);
  execute format('grant insert (%s) on public.%I to authenticated', insertable, p_table);
  execute format('grant update (%s) on public.%I to authenticated', updatable, p_table);

  -- Indexes, each made when missing:
  --   <table>_source_idx, <table>_name_idx: the find filters and the policies' source column;
  --   <table>_name_id_idx: finds read rows ordered by name then id, through a cursor that returns
  --     its first rows without sorting them all;
  --   <table>_search_vector_idx, <table>_<column>_trgm_idx per searched column,
  --     <table>_lower_name_trgm_idx, <table>_name_similarity_idx: search (search baseline, which
  --     says what each serves).
  for index_name, index_sql in
    select x.name, x.definition from (values
      (p_table || '_source_idx', 'btree (content_source_id)'),
      (p_table || '_name_idx', 'btree (lower(name))'),
      (p_table || '_name_id_idx', 'btree (name, id)'),
      (p_table || '_search_vector_idx', 'gin (search_vector)'),
      (p_table || '_lower_name_trgm_idx', 'gin (lower(name) extensions.gin_trgm_ops)'),
      (p_table || '_name_similarity_idx', 'gist (name extensions.gist_trgm_ops)')
    ) x(name, definition)
    union all
    select p_table || '_' || c || '_trgm_idx', format('gin (%I extensions.gin_trgm_ops)', c)
    from unnest(entry.searched_columns) c
  loop
    if to_regclass(format('public.%I', index_name)) is null then
      execute format('create index %I on public.%I using %s', index_name, p_table, index_sql);
    end if;
  end loop;

  -- The table's ranked search (search baseline, which explains each step): the best p_limit rows
  -- of p_visible sources, exact name first, then name prefix, then score, then name and id.
  execute format($fn$
    create or replace function private.%1$I(
      p_visible bigint[],
      p_name text,
      p_prefix text,
      p_query tsquery,
      p_excluded tsquery,
      p_limit integer
    ) returns table (id bigint, ord integer)
    language plpgsql stable security definer set search_path = ''
    set plan_cache_mode = force_generic_plan rows 20 as $body$
    begin
      return query
      select d.id, (row_number() over (order by d.tier, d.score desc, d.name, d.id))::integer
      from (
        select distinct on (c.id) c.id, c.name, c.tier, c.score
        from (
          select t.id, t.name,
            case when lower(t.name) = p_name then 0 when lower(t.name) like p_prefix then 1
              else 2 end,
            extensions.similarity(lower(t.name), p_name)
              + coalesce(ts_rank(t.search_vector, p_query), 0)
          from public.%2$I t
          where p_name is not null
            and t.content_source_id + 0 = any(p_visible)
            and (lower(t.name) operator(extensions.%%) p_name or lower(t.name) like p_prefix)
            and (p_excluded is null or not t.search_vector @@ p_excluded)
          union all
          (select f.id, f.name, 2, ts_rank(f.search_vector, p_query)
           from (
             select t.id, t.name, t.search_vector from public.%2$I t
             where p_query is not null
               and t.content_source_id + 0 = any(p_visible)
               and t.search_vector @@ p_query
               and (p_excluded is null or not t.search_vector @@ p_excluded)
             limit 1000
           ) f
           order by 4 desc, 2, 1
           limit p_limit)
        ) c(id, name, tier, score)
        order by c.id, c.tier, c.score desc
      ) d
      order by d.tier, d.score desc, d.name, d.id
      limit p_limit;
    end
    $body$
  $fn$, 'search_ranked_' || p_table, p_table);
  -- Only private.search_ranked_ids calls it (as its owner), with the sources it checked.
  execute format(
    'grant execute on function private.%I(bigint[], text, text, tsquery, tsquery, integer)
       to service_role',
    'search_ranked_' || p_table);

  perform private.build_content_lists();
end
$provision$;

-- Section: policies, triggers, grants and indexes of every listed table
-- The thirteen listed tables, made again from the list: nothing changes but the two type lists,
-- now generated.
do $$
declare
  t text;
begin
  for t in select c.name from private.content_table c order by c.name
  loop
    perform private.provision_content_table(t);
  end loop;
end
$$;
