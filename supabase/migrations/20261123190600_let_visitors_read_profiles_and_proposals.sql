-- Signed-out visitors, continued. Three pages of the web client load for visitors too: a book's
-- information (its subscriber count), a public profile (a proposal's author, a shared character's
-- owner) and the community's proposals. Each reads only what any account could read the moment it
-- signs up, so a visitor gains nothing an attacker lacks: public profile columns, proposals on
-- books readable without an account, and the subscriber count of such a book. The caller's own
-- profile (`get-user {}`) stays refused: a visitor has none.

-- Section: policies
alter policy "Proposals can be read by their author and by readers of their source"
  on public.content_update to authenticated, anon;
alter policy "Votes can be read with their proposal"
  on public.content_update_vote to authenticated, anon;

-- Section: grants
grant select on public.content_update, public.content_update_vote to anon;
grant execute on function private.public_profile(uuid, bigint) to anon;
grant execute on function private.clients_granted_to_caller(uuid) to anon;
grant execute on function private.content_source_subscriber_count(bigint) to anon;
