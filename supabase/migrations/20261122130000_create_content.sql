-- Reference content: content sources (books) and every content type stored in them.
-- Access rules, grants and triggers follow in 20261122130100_secure_content.sql.

-- Section: types (values and order match shared/enums.ts; a test compares them)
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
  -- Only the owner may read this (column grants in the next migration).
  keys jsonb check (jsonb_typeof(keys) = 'object'),
  is_published boolean not null default false,
  required_content_sources bigint[] not null default '{}',
  "group" text,
  artwork_url text,
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
);

create table public.trait (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  description text not null default '',
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array')
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  operations jsonb default '[]' check (jsonb_typeof(operations) = 'array')
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
  dedication_feat_id bigint references public.ability_block (id) on delete set null
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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
  meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
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

-- Section: indexes on find filters and policy columns
create index content_source_user_id_idx on public.content_source (user_id);
create index content_source_name_idx on public.content_source (lower(name));
create index trait_source_idx on public.trait (content_source_id);
create index trait_name_idx on public.trait (lower(name));
create index item_source_idx on public.item (content_source_id);
create index item_name_idx on public.item (lower(name));
create index item_traits_idx on public.item using gin (traits);
create index spell_source_idx on public.spell (content_source_id);
create index spell_name_idx on public.spell (lower(name));
create index spell_traits_idx on public.spell using gin (traits);
create index class_source_idx on public.class (content_source_id);
create index class_name_idx on public.class (lower(name));
create index ability_block_source_idx on public.ability_block (content_source_id);
create index ability_block_name_idx on public.ability_block (lower(name));
create index ability_block_traits_idx on public.ability_block using gin (traits);
create index ability_block_prerequisites_idx on public.ability_block using gin (prerequisites);
create index ancestry_source_idx on public.ancestry (content_source_id);
create index ancestry_name_idx on public.ancestry (lower(name));
create index archetype_source_idx on public.archetype (content_source_id);
create index archetype_name_idx on public.archetype (lower(name));
create index class_archetype_source_idx on public.class_archetype (content_source_id);
create index class_archetype_name_idx on public.class_archetype (lower(name));
create index class_archetype_class_idx on public.class_archetype (class_id);
create index versatile_heritage_source_idx on public.versatile_heritage (content_source_id);
create index versatile_heritage_name_idx on public.versatile_heritage (lower(name));
create index versatile_heritage_heritage_idx on public.versatile_heritage (heritage_id);
create index language_source_idx on public.language (content_source_id);
create index language_name_idx on public.language (lower(name));
create index background_source_idx on public.background (content_source_id);
create index background_name_idx on public.background (lower(name));
create index creature_source_idx on public.creature (content_source_id);
create index creature_name_idx on public.creature (lower(name));
create index hazard_source_idx on public.hazard (content_source_id);
create index hazard_name_idx on public.hazard (lower(name));

-- Section: row-level security (policies in the next migration; until then nothing is readable)
alter table public.content_source enable row level security;
alter table public.trait enable row level security;
alter table public.item enable row level security;
alter table public.spell enable row level security;
alter table public.class enable row level security;
alter table public.ability_block enable row level security;
alter table public.ancestry enable row level security;
alter table public.archetype enable row level security;
alter table public.class_archetype enable row level security;
alter table public.versatile_heritage enable row level security;
alter table public.language enable row level security;
alter table public.background enable row level security;
alter table public.creature enable row level security;
alter table public.hazard enable row level security;
