-- Reference content: content sources (books), the thirteen content types stored in them, and the
-- rules of who may read and write them. "Who may read a spell?" is answered in the helpers
-- section: private.source_is_readable() (read) and private.source_is_writable() (write), each
-- decided on one source's row; every content table's policies (policies section) call exactly
-- these two on the row's own source.
--
-- The thirteen content tables are listed once, in private.content_table, and every per-type part
-- of them is made from that list by private.provision_content_table (helpers section, called for
-- each listed table at the end of this file): row-level security and the four source policies, the
-- updated_at and source-bump triggers, the column grants, the stored search document, the source,
-- name and search indexes and the ranked-search helper (the search baseline says what its parts
-- are and why). It then writes the two functions that name every type,
-- private.search_ranked_ids (search baseline) and private.content_update_table (moderation
-- baseline). A new content type is its table, its row of the list and one call:
--
--   select private.provision_content_table('<table>');
--
-- What stays written per type is what only some types have: extra indexes (traits, prerequisites,
-- class, heritage), the linked-trait and reference triggers, and the TypeScript registry entry
-- (shared/content_types.ts, supabase/functions/_shared/content/tables.ts), which
-- tests/content_registry_sql_test.ts compares with this list.

-- Section: setup
-- Enum types: values and order match shared/enums.ts (a test compares them).
create type public.rarity as enum ('COMMON', 'UNCOMMON', 'RARE', 'UNIQUE');
create type public.availability as enum ('STANDARD', 'LIMITED', 'RESTRICTED');
create type public.item_group as enum
  ('GENERAL', 'WEAPON', 'ARMOR', 'SHIELD', 'RUNE', 'UPGRADE', 'MATERIAL');
create type public.item_size as enum ('TINY', 'SMALL', 'MEDIUM', 'LARGE', 'HUGE', 'GARGANTUAN');
create type public.ability_block_type as enum
  ('action', 'feat', 'physical-feature', 'sense', 'class-feature', 'heritage', 'mode');
create type public.ability_block_actions as enum (
  'ONE-ACTION', 'TWO-ACTIONS', 'THREE-ACTIONS', 'REACTION', 'FREE-ACTION',
  'ONE-TO-TWO-ACTIONS', 'ONE-TO-THREE-ACTIONS', 'TWO-TO-THREE-ACTIONS'
);

-- Section: tables
-- A book. No owner (user_id null) means official; official sources are written by admins only.
create table public.content_source (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  external_id text,
  description text,
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  user_id uuid references public.public_user (user_id) on delete cascade,
  contact_info text,
  require_key boolean not null default false,
  -- Only the owner may read this (column grants below, private.my_source_keys).
  keys jsonb check (jsonb_typeof(keys) = 'object'),
  is_published boolean not null default false,
  required_content_sources bigint[] not null default '{}',
  "group" text,
  artwork_url text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.trait (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  description text not null default '',
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.item (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  level integer not null default 0,
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  "group" public.item_group not null default 'GENERAL',
  size public.item_size not null default 'MEDIUM',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  price jsonb check (jsonb_typeof(price) = 'object'),
  bulk text,
  availability public.availability not null default 'STANDARD',
  traits bigint[] not null default '{}',
  hands text,
  craft_requirements text,
  usage text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  deprecated boolean not null default false
);

create table public.spell (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  rank smallint not null constraint spell_rank_range check (rank between 0 and 10),
  traditions text[] not null default '{}',
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  availability public.availability not null default 'STANDARD',
  "cast" text,
  defense text,
  cost text,
  trigger text,
  requirements text,
  range text,
  area text,
  targets text,
  duration text,
  traits bigint[] not null default '{}',
  heightened jsonb check (jsonb_typeof(heightened) = 'object'),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.class (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  skill_training_base integer,
  trait_id bigint references public.trait (id) on delete set null,
  artwork_url text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.ability_block (
  id bigint generated always as identity primary key,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  level integer,
  name text not null check (char_length(name) between 1 and 200),
  description text not null default '',
  version text,
  rarity public.rarity not null default 'COMMON',
  type public.ability_block_type not null,
  actions public.ability_block_actions,
  availability public.availability not null default 'STANDARD',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  prerequisites text[] not null default '{}',
  frequency text,
  cost text,
  trigger text,
  requirements text,
  access text,
  special text,
  traits bigint[] not null default '{}',
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.ancestry (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  trait_id bigint references public.trait (id) on delete set null,
  artwork_url text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  deprecated boolean not null default false
);

create table public.archetype (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  trait_id bigint references public.trait (id) on delete set null,
  artwork_url text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  dedication_feat_id bigint references public.ability_block (id) on delete set null,
  deprecated boolean not null default false
);

create table public.class_archetype (
  id bigint generated always as identity primary key,
  class_id bigint references public.class (id) on delete set null,
  archetype_id bigint references public.archetype (id) on delete set null,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  description text not null default '',
  version text,
  artwork_url text,
  rarity public.rarity not null default 'COMMON',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  feature_adjustments jsonb not null default '[]' check (jsonb_typeof(feature_adjustments) = 'array'),
  override_skill_training_base integer,
  override_class_operations boolean not null default false,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.versatile_heritage (
  id bigint generated always as identity primary key,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  trait_id bigint references public.trait (id) on delete set null,
  heritage_id bigint references public.ability_block (id) on delete set null,
  name text not null check (char_length(name) between 1 and 200),
  description text not null default '',
  version text,
  artwork_url text,
  rarity public.rarity not null default 'COMMON',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.language (
  id bigint generated always as identity primary key,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  description text not null default '',
  speakers text,
  script text,
  rarity public.rarity not null default 'COMMON',
  availability public.availability not null default 'STANDARD',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false
);

create table public.background (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  rarity public.rarity not null default 'COMMON',
  description text not null default '',
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  deprecated boolean not null default false,
  artwork_url text
);

-- A creature stat block; `type` is the constant the search summary reports.
create table public.creature (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null check (char_length(name) between 1 and 200),
  level integer not null default 0,
  rarity public.rarity not null default 'COMMON',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  deprecated boolean not null default false,
  type text not null default 'creature' check (type = 'creature'),
  details jsonb not null default '{}' check (jsonb_typeof(details) = 'object'),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  abilities_base jsonb default '[]' check (jsonb_typeof(abilities_base) = 'array'),
  abilities_added bigint[] not null default '{}',
  inventory jsonb check (jsonb_typeof(inventory) = 'object'),
  spells jsonb check (jsonb_typeof(spells) = 'object'),
  notes jsonb check (jsonb_typeof(notes) = 'object'),
  roll_history jsonb check (jsonb_typeof(roll_history) = 'object'),
  operation_data jsonb check (jsonb_typeof(operation_data) = 'object'),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  experience integer not null default 0,
  hp_current integer not null default 0,
  hp_temp integer not null default 0,
  stamina_current integer not null default 0,
  resolve_current integer not null default 0
);

-- A hazard has the creature's shape with its own `type` constant.
create table public.hazard (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null check (char_length(name) between 1 and 200),
  level integer not null default 0,
  rarity public.rarity not null default 'COMMON',
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  version text,
  deprecated boolean not null default false,
  type text not null default 'hazard' check (type = 'hazard'),
  details jsonb not null default '{}' check (jsonb_typeof(details) = 'object'),
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array'),
  abilities_base jsonb default '[]' check (jsonb_typeof(abilities_base) = 'array'),
  abilities_added bigint[] not null default '{}',
  inventory jsonb check (jsonb_typeof(inventory) = 'object'),
  spells jsonb check (jsonb_typeof(spells) = 'object'),
  notes jsonb check (jsonb_typeof(notes) = 'object'),
  roll_history jsonb check (jsonb_typeof(roll_history) = 'object'),
  operation_data jsonb check (jsonb_typeof(operation_data) = 'object'),
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object'),
  experience integer not null default 0,
  hp_current integer not null default 0,
  hp_temp integer not null default 0,
  stamina_current integer not null default 0,
  resolve_current integer not null default 0
);

-- The one list of content tables (every table that holds records of a content source), from
-- which private.provision_content_table makes each one's generated parts, so adding a type is one
-- row here plus its table above. `searched_columns`: the text columns search matches with trigram
-- indexes (contains-match, similarity); a table whose list has `description` gets it in its
-- full-text document. `search_bucket`: the bucket search-data's simple mode answers the table's
-- rows in (the registry's `searchBucket`). `moderated`: content updates (community errata) may
-- name the type; hazards are not a type of the interface's ContentType, so they may not.
create table private.content_table (
  name text primary key,
  searched_columns text[] not null check ('name' = any (searched_columns)),
  search_bucket text not null unique,
  moderated boolean not null default true
);
insert into private.content_table (name, searched_columns, search_bucket, moderated) values
  ('trait', '{name,description}', 'traits', true),
  ('item', '{name,description,usage,craft_requirements}', 'items', true),
  ('spell', '{name,description,cost,trigger,requirements,range,area,targets,duration,defense}',
    'spells', true),
  ('class', '{name,description}', 'classes', true),
  ('class_archetype', '{name,description}', 'class_archetypes', true),
  ('ability_block', '{name,description,cost,trigger,requirements,frequency,access,special}',
    'ability_blocks', true),
  ('versatile_heritage', '{name,description}', 'versatile_heritages', true),
  ('language', '{name,description}', 'languages', true),
  ('ancestry', '{name,description}', 'ancestries', true),
  ('archetype', '{name,description}', 'archetypes', true),
  ('background', '{name,description}', 'backgrounds', true),
  ('creature', '{name}', 'creatures', true),
  ('hazard', '{name}', 'hazards', false);

-- A user who entered a key-locked source's access key. Lives in `private`: only the helpers below
-- read or write it.
create table private.content_source_unlock (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  unlocked_at timestamptz not null default now(),
  primary key (user_id, content_source_id)
);

-- Wrong access keys entered, per source, with the user and the client address they came from, for
-- the unlock throttle. Rows older than the window are deleted as new failures arrive.
create table private.content_source_unlock_failure (
  user_id uuid not null references public.public_user (user_id) on delete cascade,
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  failed_at timestamptz not null default now(),
  address text
);

-- Section: indexes (find filters and policy columns)
create index content_source_user_id_idx on public.content_source (user_id);
create index content_source_name_idx on public.content_source (lower(name));
-- Each content table's source, name and search indexes are made from the list
-- (private.provision_content_table); these are the ones only some types have.
create index item_traits_idx on public.item using gin (traits);
create index spell_traits_idx on public.spell using gin (traits);
create index ability_block_traits_idx on public.ability_block using gin (traits);
create index ability_block_prerequisites_idx on public.ability_block using gin (prerequisites);
create index class_archetype_class_idx on public.class_archetype (class_id);
create index versatile_heritage_heritage_idx on public.versatile_heritage (heritage_id);

-- Finds list rows ordered by name, then id, and a find without id reads them through a cursor
-- while its answer is sent. With an index in that order, the cursor's plan returns its first rows
-- without sorting the whole result first: the first byte does not wait for every row. (Each
-- content table's own, <table>_name_id_idx, is made from the list.)
create index content_source_name_id_idx on public.content_source (name, id);

create index content_source_unlock_source_idx on private.content_source_unlock (content_source_id);
create index content_source_unlock_failure_idx
  on private.content_source_unlock_failure (user_id, content_source_id, failed_at);
create index content_source_unlock_failure_address_idx
  on private.content_source_unlock_failure (content_source_id, address, failed_at);

-- Section: helpers
-- The read rule, in one place: published official sources; the caller's own sources, published or
-- not; another user's published source unless it needs an access key the caller has not entered.
-- Admins also see unpublished official sources (they maintain them). It is decided on the one
-- source a row belongs to, looked up by primary key, never on the set of every source the caller
-- may read: building that set once per statement made finding one spell cost as much as there
-- were sources (with 50,000 homebrew sources a find by id was five times slower).

-- Whether the caller entered the access key of a source. Security definer: the unlock table is
-- read by these helpers only. One primary-key lookup. Cost 1 (as private.is_admin()): the rule
-- calls it only for the rare rows whose answer depends on it, but the planner charges a function's
-- cost on every row, and the default (100) made a policy-filtered scan of a few thousand rows look
-- expensive enough to be JIT-compiled, which costs more than the scan.
create function private.has_unlocked_source(p_source_id bigint) returns boolean
language plpgsql stable security definer set search_path = '' cost 1 as $$
begin
  return exists (
    select 1 from private.content_source_unlock u
    where u.user_id = (select auth.uid()) and u.content_source_id = p_source_id
  );
end
$$;

-- The read rule on one source's columns, for a caller (pass `(select auth.uid())`, which the
-- planner evaluates once per statement rather than once per row). Plain SQL with invoker rights
-- and no `set search_path` (every name is qualified) so the planner inlines it: a policy or
-- query that calls it is planned as if it held the expression itself, and the two helpers are
-- called only for the rows whose answer depends on them (unpublished official, key-locked).
-- It reads no table: a caller passing another user's id learns nothing the columns did not say.
create function private.source_is_readable(
  p_source_id bigint,
  p_owner uuid,
  p_is_published boolean,
  p_require_key boolean,
  p_caller uuid
) returns boolean
language sql stable as $$
  select (p_owner is null and (p_is_published or private.is_admin()))
    or p_owner = p_caller
    or (p_is_published and (not p_require_key or private.has_unlocked_source(p_source_id)))
$$;

-- The write rule: the caller's own sources; official sources only for admins. On one source's
-- owner, for a caller passed as above; inlined the same way.
create function private.source_is_writable(p_owner uuid, p_caller uuid) returns boolean
language sql stable as $$
  select p_owner = p_caller or (p_owner is null and private.is_admin())
$$;

-- Whether the caller may read one source: one primary-key lookup.
create function private.can_read_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select exists (
    select 1 from public.content_source s
    where s.id = p_source_id
      and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
        (select auth.uid()))
  )
$$;

-- Whether the caller may write one source: one primary-key lookup.
create function private.can_write_source(p_source_id bigint) returns boolean
language sql stable set search_path = '' as $$
  select exists (
    select 1 from public.content_source s
    where s.id = p_source_id and private.source_is_writable(s.user_id, (select auth.uid()))
  )
$$;

-- The readable-source condition as SQL text, for the statements and policies that are generated
-- with format(): "the source whose id is <p_source_id> (an SQL expression) is one the caller may
-- read", decided on that one source's row, looked up by primary key, by private.source_is_readable
-- above. Text rather than a boolean function on purpose: a SQL function holding a subquery is
-- never inlined, so a policy calling one per row would run a function call per row where this
-- condition plans as an index lookup the planner can see. Where a call per statement or per
-- written row is enough, private.can_read_source(id) is the same rule as a function.
create function private.readable_source_condition(p_source_id text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'exists (select 1 from public.content_source s where s.id = %s
       and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
         (select auth.uid())))',
    p_source_id)
$$;

-- The access keys of the sources the caller may write: the only way `keys` is read. The owner's
-- rows come from the owner index; an admin's official rows from the same index (null owner).
create function private.my_source_keys() returns table (content_source_id bigint, keys jsonb)
language sql stable security definer set search_path = '' as $$
  select s.id, s.keys from public.content_source s
  where s.user_id = (select auth.uid())
  union all
  select s.id, s.keys from public.content_source s
  where s.user_id is null and (select private.is_admin())
$$;

-- Enters an access key: on a match the caller may read that source from now on. Security definer
-- because it compares against `keys`, which callers cannot read; the checks here are all it allows.
-- Answers 'unlocked' or 'invalid' instead of raising on a wrong key, so the failure it records
-- survives (a raise would roll it back). Wrong keys are counted per user and per client address
-- (p_address, null when unknown): after 5 wrong keys for one source in 15 minutes from one user,
-- or from one address whatever accounts they come from, it refuses to compare at all until the
-- window has passed (counted per user alone, N accounts gave 5N guesses every 15 minutes). Someone
-- holding the right key is refused only while sharing the guesser's address, and only until the
-- window passes; a source once unlocked stays readable to that user.
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

-- How many profiles list a source among their subscriptions, by the GIN index of the accounts
-- baseline; 0 for a source the caller may not read, so it tells nothing about sources the caller
-- cannot see. Security definer because profiles are readable only by their owner; it returns a
-- count and nothing else. Signed-out visitors call it too (a book's information page): for a
-- source anyone may read, the count any new account could ask for. One call per request, so the
-- read rule is asked as a function.
create function private.content_source_subscriber_count(p_source_id bigint)
returns bigint
language sql stable security definer set search_path = '' as $$
  select count(*) from public.public_user u
  where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', p_source_id))
    and private.can_read_source(p_source_id)
$$;

-- The content sources every caller sees by default: the official (ownerless) published ones.
-- Invoker rights: everyone may read these rows, so row-level security changes nothing here. No
-- `set search_path` (the name is qualified): that keeps the function inlinable, so a query that
-- calls it is planned exactly as if it held the subquery itself.
create function private.official_source_ids() returns setof bigint
language sql stable as $$
  select s.id from public.content_source s where s.user_id is null and s.is_published
$$;

-- Linked traits (docs/content.md): a class, ancestry, archetype or versatile heritage carries a
-- trait of its own, kept in step by the keep_linked_trait trigger and by moderation. The trait's
-- name, as the reference names it:
create function private.linked_trait_name(p_table text, p_name text) returns text
language sql immutable set search_path = '' as $$
  select case when p_table = 'archetype' then btrim(p_name) || ' Archetype' else btrim(p_name) end
$$;

-- The description of such a trait while nobody has rewritten it.
create function private.linked_trait_description(p_table text, p_name text) returns text
language sql immutable set search_path = '' as $$
  select format('This indicates content from the %s %s.', lower(btrim(p_name)),
    replace(p_table, '_', ' '))
$$;

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

-- The generated parts of every content table, made from the list (docs/architecture.md, "Adding a
-- content type"). Both run as the migrations' role only (no grant); each name they put into SQL
-- comes from private.content_table.
--
-- private.build_content_lists() writes the two functions that name every content type, from the
-- list:
--   private.content_update_table(type): the table a content update's type is stored in (the API's
--     name with `_` for `-`), or null for a type moderation does not accept: the moderated content
--     tables and `content-source`. It is also content_update's check on `type` (moderation
--     baseline), so the list is written in one place. Immutable: its body is a constant, rewritten
--     only here.
--   private.search_ranked_ids: simple mode in one call (search baseline), one static call of each
--     table's private.search_ranked_<table> (static SQL keeps each call's plan), answered under the
--     table's search bucket. The order of the calls does not matter: search-data orders each
--     bucket by the rank each call returns.
-- Their grants are given where they are used (moderation and search baselines); writing them again
-- keeps them.
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

-- private.provision_content_table(t) makes (or makes again) the generated parts of one listed
-- table: row-level security and its four source policies (policies section), the updated_at and
-- source-bump triggers (triggers section), the column grants (grants section), the stored search
-- document, the source, name and search indexes and the table's ranked-search helper (search
-- baseline, which explains each of them); what exists already is kept (indexes, the search
-- document) or made again the same way (policies, triggers, grants, the search helper). Then it
-- rewrites the type lists (private.build_content_lists above). Only for tables of
-- private.content_table, so a name reaches format() only from that list. Run for every listed
-- table at the end of this file, once the trigger functions exist.
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

-- Section: policies
alter table public.content_source enable row level security;
alter table private.content_table enable row level security;
alter table private.content_source_unlock enable row level security;

-- Decided on the row itself, so the owner of a source just inserted reads it back
-- (`insert ... returning`).
create policy "Readable sources can be read" on public.content_source
  for select to authenticated, anon
  using (private.source_is_readable(id, user_id, is_published, require_key, (select auth.uid())));

create policy "Signed-in users can create sources they own" on public.content_source
  for insert to authenticated with check (user_id = (select auth.uid()));

create policy "Owners can edit their sources, admins official ones" on public.content_source
  for update to authenticated
  using (private.source_is_writable(user_id, (select auth.uid())))
  with check (private.source_is_writable(user_id, (select auth.uid())));

create policy "Owners can delete their sources, admins official ones" on public.content_source
  for delete to authenticated using (private.source_is_writable(user_id, (select auth.uid())));

-- The same four policies on every content table (private.content_table), made by
-- private.provision_content_table so they cannot drift apart. Who may read a spell, a trait or any
-- other record: whoever may read its own source, private.source_is_readable() above on that
-- source's row (the condition private.readable_source_condition writes); who may write one:
-- private.source_is_writable() likewise. The rule is spelled out rather than left to
-- content_source's policy, so widening who may see a source's row (a listing of names, say) can
-- never widen who reads its content. The write policies' lookup of the source runs under
-- content_source's read policy too, which every writable source passes. Signed-out visitors
-- (role anon) read by the same rule: with no user, they see the published official sources and
-- the published homebrew that needs no key, and write nothing.

-- Section: triggers
-- A new source always belongs to its creator, and a homebrew source needs supporter tier 2 (admins
-- are exempt); the tier is the creator's, who is the caller by then. Rows inserted with no
-- signed-in user (seed, maintenance) keep the owner they name.
create function private.claim_new_content_source() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is null then
    return new;
  end if;
  new.user_id := (select auth.uid());
  -- Lock the owner's row so a concurrent tier change cannot slip between check and insert.
  perform 1 from public.public_user u where u.user_id = new.user_id for update;
  if not (select private.is_admin()) then
    perform private.require_tier(new.user_id, 2, 'creating a homebrew content source');
  end if;
  return new;
end
$$;

create trigger claim_new_content_source before insert on public.content_source
  for each row execute function private.claim_new_content_source();

-- updated_at moves only when something really changed, so clients can poll it. The rows are
-- compared without their generated columns: a BEFORE trigger sees those of NEW as not yet
-- computed (the search vectors), so comparing whole rows would call every edit a change.
create function private.touch_updated_at() returns trigger
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

-- Any change to a content row bumps its source, so polling sources detects content changes.
-- Security definer: the writer may not update the source's updated_at column itself.
create function private.bump_content_source() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.content_source set updated_at = now()
  where id in (
    select (case when tg_op = 'DELETE' then old.content_source_id else new.content_source_id end)
  ) and updated_at < now();
  return null;
end
$$;

create trigger touch_updated_at before update on public.content_source
  for each row execute function private.touch_updated_at();

-- Every content table gets touch_updated_at, and bump_content_source after an insert, a delete or
-- a real change, from private.provision_content_table.

-- A key-locked source needs a key worth guessing: at least 8 characters. Official sources are
-- readable by everyone, so a key on one would lock nothing: it is refused rather than ignored.
create function private.vet_source_access_key() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.require_key and new.user_id is null then
    raise exception 'Invalid value for require_key: official content sources cannot require a key';
  end if;
  if new.require_key and length(coalesce(new.keys ->> 'access_key', '')) < 8 then
    raise exception 'Invalid value for keys.access_key: a key-locked source needs an access key of at least 8 characters';
  end if;
  return new;
end
$$;

create trigger vet_source_access_key before insert or update of require_key, keys, user_id
  on public.content_source
  for each row execute function private.vet_source_access_key();

-- A record may point only at rows its writer can read: foreign keys are checked without row
-- security, so without this a class could link another user's hidden trait, and the answer would
-- tell that the hidden row exists. Arguments: pairs of (column, referenced table). Runs as the
-- caller (not security definer), so the lookup sees exactly what the caller may read; the refusal
-- reads as a missing row, with the same SQLSTATE and field as a real foreign-key miss.
create function private.refuse_unreadable_references() returns trigger
language plpgsql set search_path = '' as $$
declare
  i integer := 0;
  column_name text;
  referenced text;
  new_value bigint;
  old_value bigint;
  found_row boolean;
begin
  while i < tg_nargs loop
    column_name := tg_argv[i];
    referenced := tg_argv[i + 1];
    i := i + 2;
    new_value := (to_jsonb(new) ->> column_name)::bigint;
    old_value := case when tg_op = 'UPDATE' then (to_jsonb(old) ->> column_name)::bigint end;
    continue when new_value is null or new_value is not distinct from old_value;
    execute format('select exists (select 1 from public.%I where id = $1)', referenced)
      into found_row using new_value;
    if not found_row then
      raise exception 'Referenced record not found: %', column_name
        using errcode = '23503', column = column_name;
    end if;
  end loop;
  return new;
end
$$;

create trigger refuse_unreadable_references before insert or update on public.class
  for each row execute function private.refuse_unreadable_references('trait_id', 'trait');
create trigger refuse_unreadable_references before insert or update on public.ancestry
  for each row execute function private.refuse_unreadable_references('trait_id', 'trait');
create trigger refuse_unreadable_references before insert or update on public.archetype
  for each row execute function private.refuse_unreadable_references(
    'trait_id', 'trait', 'dedication_feat_id', 'ability_block');
create trigger refuse_unreadable_references before insert or update on public.versatile_heritage
  for each row execute function private.refuse_unreadable_references(
    'trait_id', 'trait', 'heritage_id', 'ability_block');
create trigger refuse_unreadable_references before insert or update on public.class_archetype
  for each row execute function private.refuse_unreadable_references(
    'class_id', 'class', 'archetype_id', 'archetype');

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

-- Section: grants
-- `keys` (the access key) is left out of select: its owner reads it through private.my_source_keys().
-- `user_id` is set by a trigger; ids and timestamps are never written by callers.
-- Signed-out visitors read the same columns as signed-in users.
grant select (id, name, url, created_at, updated_at, external_id, description, operations, user_id,
  contact_info, require_key, is_published, required_content_sources, "group", artwork_url,
  meta_data, deprecated) on public.content_source to authenticated, anon;
grant insert (name, url, external_id, description, operations, contact_info, require_key, keys,
  is_published, required_content_sources, "group", artwork_url, meta_data, deprecated)
  on public.content_source to authenticated;
grant update (name, url, external_id, description, operations, contact_info, require_key, keys,
  is_published, required_content_sources, "group", artwork_url, meta_data, deprecated)
  on public.content_source to authenticated;
grant delete on public.content_source to authenticated;

-- Every content table: read all columns (signed-out visitors too); insert all but id and
-- timestamps; update those minus content_source_id (content never moves between sources); delete.
-- Generated columns (the search_vector) are not writable and get no grant. Made by
-- private.provision_content_table (below).

-- anon: the read policies and the find and search statements call these for signed-out visitors
-- too. Each decides by `auth.uid()`, which is null for a visitor: no own, unlocked, writable or
-- admin rows. Every role whose statements the policies check runs the rule helpers (the planner
-- inlines a function only for a caller allowed to execute it).
grant execute on function private.has_unlocked_source(bigint) to anon, authenticated, service_role;
grant execute on function private.source_is_readable(bigint, uuid, boolean, boolean, uuid)
  to anon, authenticated, service_role;
grant execute on function private.source_is_writable(uuid, uuid)
  to anon, authenticated, service_role;
grant execute on function private.can_read_source(bigint) to anon, authenticated, service_role;
grant execute on function private.can_write_source(bigint) to authenticated, service_role;
grant execute on function private.my_source_keys() to anon, authenticated, service_role;
grant execute on function private.unlock_content_source(bigint, text, text) to authenticated;
grant execute on function private.content_source_subscriber_count(bigint) to anon, authenticated;
grant execute on function private.official_source_ids() to anon, authenticated, service_role;
grant execute on function private.linked_trait_name(text, text) to authenticated, service_role;
grant execute on function private.linked_trait_description(text, text)
  to authenticated, service_role;
grant execute on function private.find_or_make_linked_trait(text, text, bigint)
  to authenticated, service_role;

-- Last, once every function they use exists: the generated parts of every listed table
-- (policies, triggers, grants, the search document, indexes and search helpers), and the two
-- functions that name every type.
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
