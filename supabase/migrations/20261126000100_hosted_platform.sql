-- What running on the hosted platform showed (the emulation in CI, scripts/hosted/).

-- The platform's auth.jwt() is null, not an empty object, when a statement runs without request
-- claims (the dashboard, a migration, the owner's tools): "not an API-client request" then, rather
-- than a null that the character-write guard read as one.
create or replace function private.is_api_client_request() returns boolean
language sql stable set search_path = '' as $$
  select coalesce((select auth.jwt()) ? 'api_client_id', false)
$$;

-- Storage buckets for public files, one per upload category (shared/uploads.ts), public to read
-- and written only by upload-public-file with the project's secret key. Only where the platform's
-- Storage schema exists: the local server keeps files in a folder instead.
do $$
begin
  if to_regclass('storage.buckets') is not null then
    insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
    select category, category, true, 2097152, array['image/png', 'image/jpeg', 'image/webp']
    from unnest(array['portraits', 'backgrounds']) as category
    on conflict (id) do nothing;
  end if;
end
$$;
