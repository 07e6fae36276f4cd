-- Similarity search (vector-db-query-collection) on Postgres: its own indexes, named
-- <table>_name_similarity_idx and <table>_content_similarity_idx, so they stay independent of
-- search-data's. The `name` collection ranks by trigram distance (1 - similarity), served
-- nearest-first by a GiST index; the `content` collection by full-text rank over an expression
-- of name and description. Nothing here changes who may read what: queries run as the caller.

-- Section: extensions
create extension if not exists pg_trgm with schema extensions;

-- Section: indexes
-- The document expressions below are repeated verbatim by the query code
-- (supabase/functions/_shared/similarity/similarity_tables.ts) so the planner can use them.
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background', 'creature', 'hazard']
  loop
    execute format('create index %I on public.%I using gist (name extensions.gist_trgm_ops)',
      t || '_name_similarity_idx', t);
  end loop;
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background']
  loop
    execute format(
      'create index %I on public.%I using gin (to_tsvector(''english''::regconfig, name || '' '' || description))',
      t || '_content_similarity_idx', t);
  end loop;
  -- Creatures and hazards keep their description inside `details`.
  foreach t in array array['creature', 'hazard']
  loop
    execute format(
      'create index %I on public.%I using gin (to_tsvector(''english''::regconfig, name || '' '' || coalesce(details ->> ''description'', '''')))',
      t || '_content_similarity_idx', t);
  end loop;
end
$$;

-- Section: grants
-- The trigram distance operator (<->) runs as the caller; functions are not executable by
-- default in this project. Where the extension already existed (hosted Supabase) this is a no-op.
grant execute on function extensions.similarity_dist(text, text) to authenticated, service_role;
