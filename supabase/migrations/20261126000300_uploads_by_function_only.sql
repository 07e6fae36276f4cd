-- A stored file's row is written only by upload-public-file, after it has checked and stored the
-- bytes: a signed-in user calling the REST layer (PostgREST, which exposes `public`) can no longer
-- insert rows of its own making. The function records them through a definer in `private`, which
-- the REST layer does not expose; the tier trigger and the path rule still apply.
revoke insert on public.uploaded_file from authenticated;
drop policy if exists "Users can record their own uploaded files" on public.uploaded_file;

create function private.record_upload(
  p_bucket text,
  p_path text,
  p_content_type text,
  p_byte_size integer
) returns void
language sql security definer set search_path = '' as $$
  insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
  values ((select auth.uid()), p_bucket, p_path, p_content_type, p_byte_size)
  on conflict (bucket, path) do nothing
$$;
revoke execute on function private.record_upload(text, text, text, integer) from public;
grant execute on function private.record_upload(text, text, text, integer) to authenticated;
