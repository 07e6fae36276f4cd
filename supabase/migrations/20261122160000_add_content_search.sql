-- What search-data needs to stay fast on a large corpus: a stored full-text document on every
-- content table (English stemming, name weighted above description) and trigram indexes on the
-- names and on every text column advanced mode filters with a contains-match.
-- Nothing here changes who may read what: search runs as the caller, under the read policies.

-- Section: extensions
-- Supabase keeps extensions in their own schema; plain Postgres and PGlite follow the same layout
-- (the local bootstrap creates the schema). Callers use the operators schema-qualified.
create extension if not exists pg_trgm with schema extensions;

-- Section: columns
-- The full-text document: name (weight A) and description (weight B), English configuration.
-- Creatures and hazards have no description column, so their document is the name alone.
-- Generated and stored, so it can never drift from the row and writers never set it.
do $$
declare
  t text;
begin
  foreach t in array array['trait', 'item', 'spell', 'class', 'class_archetype', 'ability_block',
    'versatile_heritage', 'language', 'ancestry', 'archetype', 'background']
  loop
    execute format(
      'alter table public.%I add column search_vector tsvector generated always as (
         setweight(to_tsvector(''english''::regconfig, name), ''A'')
         || setweight(to_tsvector(''english''::regconfig, description), ''B'')) stored', t);
  end loop;
  foreach t in array array['creature', 'hazard']
  loop
    execute format(
      'alter table public.%I add column search_vector tsvector generated always as (
         setweight(to_tsvector(''english''::regconfig, name), ''A'')) stored', t);
  end loop;
end
$$;

-- Section: indexes
-- Full text: one GIN index per document.
-- Trigram GIN indexes serve three things: name similarity (typo tolerance), name prefixes, and the
-- case-insensitive contains-matches of advanced mode (`ilike '%word%'`), which would otherwise
-- read every row.
do $$
declare
  t text;
  c text;
  searched constant jsonb := '{
    "trait": ["name", "description"],
    "item": ["name", "description", "usage", "craft_requirements"],
    "spell": ["name", "description", "cost", "trigger", "requirements", "range", "area",
              "targets", "duration", "defense"],
    "class": ["name", "description"],
    "class_archetype": ["name", "description"],
    "ability_block": ["name", "description", "cost", "trigger", "requirements", "frequency",
                      "access", "special"],
    "versatile_heritage": ["name", "description"],
    "language": ["name", "description"],
    "ancestry": ["name", "description"],
    "archetype": ["name", "description"],
    "background": ["name", "description"],
    "creature": ["name"],
    "hazard": ["name"]
  }';
begin
  for t in select jsonb_object_keys(searched)
  loop
    execute format('create index %I on public.%I using gin (search_vector)',
      t || '_search_vector_idx', t);
    for c in select jsonb_array_elements_text(searched -> t)
    loop
      execute format('create index %I on public.%I using gin (%I extensions.gin_trgm_ops)',
        t || '_' || c || '_trgm_idx', t, c);
    end loop;
  end loop;
end
$$;

-- Section: grants
-- Functions are not executable by default in this project (see the accounts migration), and that
-- default also covers an extension created here. Search calls these as the caller: similarity()
-- for ranking and the `%` operator (similarity_op) for typo-tolerant name matching. Where the
-- extension already existed (hosted Supabase) these grants are already in place.
grant execute on function extensions.similarity(text, text) to authenticated, service_role;
grant execute on function extensions.similarity_op(text, text) to authenticated, service_role;
