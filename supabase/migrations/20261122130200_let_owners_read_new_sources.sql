-- An owner reads their source through its own row, not only through readable_source_ids(): that
-- helper's snapshot predates the statement, so `insert ... returning` of a new source was refused.

-- Section: policies
drop policy "Readable sources can be read" on public.content_source;

create policy "Readable sources can be read" on public.content_source
  for select to authenticated
  using (user_id = (select auth.uid()) or id in (select private.readable_source_ids()));
