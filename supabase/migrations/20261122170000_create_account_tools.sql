-- Account tools: public profiles of other users, indexed subscriber counts, uploaded public
-- files, and deleting one's own account. Tier, role flags, ids and timestamps stay protected by
-- the column grants of 20261122120000_create_accounts.sql.

-- Section: tables
-- One row per stored public file. The row is what the tier rule guards (its insert trigger), and
-- it goes away with its owner's account.
create table public.uploaded_file (
  id bigint generated always as identity primary key,
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  bucket text not null check (bucket in ('portraits', 'backgrounds')),
  path text not null check (path ~ '^[0-9a-f-]{36}/[0-9a-f]{64}\.(png|jpg|webp)$'),
  content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/webp')),
  byte_size integer not null check (byte_size between 1 and 2097152),
  created_at timestamptz not null default now(),
  unique (bucket, path)
);

-- Subscriptions are matched by containment (`@> [{"source_id": n}]`), which needs numeric ids.
-- Every element must be an object with a numeric source_id (strict mode: a missing key fails).
alter table public.public_user add constraint public_user_subscriptions_shape check (
  jsonb_typeof(subscribed_content_sources) <> 'array'
  or jsonb_array_length(subscribed_content_sources) = jsonb_array_length(jsonb_path_query_array(
    subscribed_content_sources,
    'strict $[*] ? (@.type() == "object" && @.source_id.type() == "number")'
  ))
);

-- Section: indexes on policy and lookup columns
create index uploaded_file_user_id_idx on public.uploaded_file (user_id);
-- Counts subscribers of a source without reading every profile (get-content-source-stats).
create index public_user_subscribed_sources_idx on public.public_user
  using gin (subscribed_content_sources jsonb_path_ops);

-- Section: grants
grant select on public.uploaded_file to authenticated;
grant insert (bucket, path, content_type, byte_size) on public.uploaded_file to authenticated;

-- Section: helpers
-- Supporter level 1 or higher, as every tier cap counts it (paid tier, role flags, GM group).
create function private.can_upload_public_files() returns boolean
language sql stable security definer set search_path = '' as $$
  select private.effective_tier((select auth.uid())) >= 1
$$;
grant execute on function private.can_upload_public_files() to authenticated;

-- Section: triggers
-- Rows recorded with no signed-in user (maintenance) are not the caller's upload: no tier to check.
create function private.enforce_upload_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is not null and not (select private.can_upload_public_files()) then
    raise exception 'User does not have access' using detail = '{"required_tier": 1}';
  end if;
  return new;
end
$$;

create trigger enforce_upload_tier before insert on public.uploaded_file
  for each row execute function private.enforce_upload_tier();

-- Section: policies
alter table public.uploaded_file enable row level security;

create policy "Users can read their own uploaded files" on public.uploaded_file
  for select to authenticated using (user_id = (select auth.uid()));

create policy "Users can record their own uploaded files" on public.uploaded_file
  for insert to authenticated with check (user_id = (select auth.uid()));

-- Section: public functions
-- Another user's profile, public columns only. Security definer because profiles are readable
-- only by their owner; this returns the columns anyone signed in may see and nothing else.
-- Deactivated accounts are not shown.
create function private.public_profile(p_user_id uuid, p_profile_id bigint)
returns table (
  id bigint, user_id uuid, created_at timestamptz, display_name text, image_url text,
  background_image_url text, site_theme jsonb, summary text, is_admin boolean, is_mod boolean,
  is_developer boolean, is_community_paragon boolean, supporter_tier smallint
)
language sql stable security definer set search_path = '' as $$
  select u.id, u.user_id, u.created_at, u.display_name, u.image_url, u.background_image_url,
         u.site_theme, u.summary, u.is_admin, u.is_mod, u.is_developer, u.is_community_paragon,
         u.supporter_tier
  from public.public_user u
  where (p_user_id is not null or p_profile_id is not null)
    and (p_user_id is null or u.user_id = p_user_id)
    and (p_profile_id is null or u.id = p_profile_id)
    and not u.deactivated
$$;
grant execute on function private.public_profile(uuid, bigint) to authenticated;

-- How many profiles list a source among their subscriptions, by the GIN index above. Security
-- definer because profiles are readable only by their owner; it returns a count and nothing else.
create function private.content_source_subscriber_count(p_source_id bigint) returns bigint
language sql stable security definer set search_path = '' as $$
  select count(*) from public.public_user u
  where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', p_source_id))
$$;
grant execute on function private.content_source_subscriber_count(bigint) to authenticated;

-- Deletes the signed-in caller's identity; the profile and everything owned through it cascade
-- (characters, campaigns, encounters, API clients and key hashes, grants, proposals, files), all
-- in the caller's transaction. Refused while the caller owns content sources, which would
-- otherwise vanish for their subscribers. Security definer because identities are not writable
-- by users; it only ever deletes the caller.
create function private.delete_own_account() returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  me uuid := (select auth.uid());
begin
  if me is null or (select private.is_api_client_request()) then
    raise exception 'User not found';
  end if;
  if exists (select 1 from public.content_source s where s.user_id = me) then
    raise exception 'Delete or transfer your content sources first';
  end if;
  delete from auth.users where id = me;
  if not found then
    raise exception 'User not found';
  end if;
  return me;
end
$$;
grant execute on function private.delete_own_account() to authenticated;
