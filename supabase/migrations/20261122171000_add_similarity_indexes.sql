-- Similarity search (vector-db-query-collection) on Postgres. The `name` collection ranks by
-- trigram distance (1 - similarity), read nearest-first from its own GiST indexes, named
-- <table>_name_similarity_idx (search-data's trigram indexes are GIN, which cannot order by
-- distance). The `content` collection ranks by full text over the stored `search_vector` of
-- 20261122160000_add_content_search.sql and its GIN index: ranking a stored document is about 15
-- times faster than recomputing one per matching row (measured on 50,000 matches).
-- Nothing here changes who may read what: queries run as the caller.

-- Section: extensions
create extension if not exists pg_trgm with schema extensions;

-- Section: indexes
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
end
$$;

-- Section: grants
-- The trigram distance operator (<->) runs as the caller; functions are not executable by
-- default in this project. Where the extension already existed (hosted Supabase) this is a no-op.
grant execute on function extensions.similarity_dist(text, text) to authenticated, service_role;
