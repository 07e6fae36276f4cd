-- What the reference web client needs from the database: campaign descriptions as plain text, and
-- character grants written and read through `details.api_clients.client_access` while staying rows
-- of public.character_grant.

-- Section: tables
-- The web client stores a campaign's description as text; the interface's object form stays valid.
alter table public.campaign drop constraint campaign_description_check;
alter table public.campaign add constraint campaign_description_check
  check (jsonb_typeof(description) in ('object', 'string'));
