-- Rows for every table of a database at the last release (after its migrations and the seed), as
-- a deployed project would hold them: accounts of each kind, their homebrew, characters, campaigns,
-- proposals and the service's bookkeeping. The upgrade test and `deno task schema:compare` apply
-- the later migrations on top and check that nothing was lost; a table this file leaves empty fails
-- the test, so a table added by a release gets its rows here when that release is cut.
-- Run as the database owner; triggers that act for the signed-in user see the one named in
-- request.jwt.claims.

insert into auth.users (id, email, raw_user_meta_data) values
  ('10000000-0000-4000-8000-000000000001', 'gm@example.test', '{"display_name": "Game Master"}'),
  ('10000000-0000-4000-8000-000000000002', 'player@example.test', '{}');

update public.public_user set supporter_tier = 4, summary = 'Runs the Tuesday table',
  site_theme = '{"mode": "dark"}', subscribed_content_sources = '[{"source_id": 1}]'
where user_id = '10000000-0000-4000-8000-000000000001';

insert into public.gm_group (gm_user_id, access_code)
values ('10000000-0000-4000-8000-000000000001', 'abc123');
insert into public.gm_group_member (user_id, gm_user_id)
values ('10000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001');

insert into public.api_client (user_id, name, description)
values ('10000000-0000-4000-8000-000000000001', 'Dice roller', 'Rolls for the table');
insert into private.api_key (key_hash, user_id, client_id)
select repeat('ab', 32), '10000000-0000-4000-8000-000000000001', id from public.api_client;

insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
values ('10000000-0000-4000-8000-000000000001', 'portraits',
  '10000000-0000-4000-8000-000000000001/' || repeat('0f', 32) || '.png', 'image/png', 1024);

insert into private.ai_request (user_id) values ('10000000-0000-4000-8000-000000000001');
insert into private.idempotent_request (scope, key, endpoint, body_hash, status, answer)
values ('user:10000000-0000-4000-8000-000000000001', 'retry-1', 'create-character',
  repeat('cd', 32), 200, '{"status": "success", "data": {"id": 1}}');

-- Homebrew: a key-locked source of the GM's, with content of every type it can hold.
select set_config('request.jwt.claims',
  '{"sub": "10000000-0000-4000-8000-000000000001", "role": "authenticated"}', false);
insert into public.content_source (name, description, require_key, keys, is_published, "group")
values ('Homebrew Hoard', 'The table''s own rules', true, '{"access_key": "open-sesame"}', true,
  'homebrew');
select set_config('request.jwt.claims', '', false);

insert into public.trait (name, content_source_id, description)
select 'Glittering', id, 'Shines in the dark' from public.content_source where name = 'Homebrew Hoard';
insert into public.spell (name, rank, traditions, content_source_id, description, traits)
select 'Gilded Ward', 2, '{arcane}', s.id, 'A shield of coins',
  array[(select t.id from public.trait t where t.name = 'Glittering')]
from public.content_source s where s.name = 'Homebrew Hoard';

insert into private.content_source_unlock (user_id, content_source_id)
select '10000000-0000-4000-8000-000000000002', id from public.content_source
where name = 'Homebrew Hoard';
insert into private.content_source_unlock_failure (user_id, content_source_id, address)
select '10000000-0000-4000-8000-000000000002', id, '203.0.113.7' from public.content_source
where name = 'Homebrew Hoard';

insert into public.campaign (user_id, name, description, notes)
values ('10000000-0000-4000-8000-000000000001', 'The Sunken Vault', '"Below the harbour"',
  '{"session": 3}');
insert into public.campaign_join_grant (user_id, campaign_id)
select '10000000-0000-4000-8000-000000000002', id from public.campaign;

insert into public.character (user_id, campaign_id, name, level, experience, details, notes,
  inventory)
select '10000000-0000-4000-8000-000000000002', id, 'Brin Copperkettle', 3, 120,
  '{"is_public": true, "ancestry": {"id": 1}}', '{"pages": []}',
  '{"items": [{"id": 1, "qty": 2}], "coins": {"cp": 3, "sp": 4, "gp": 5, "pp": 0}}'
from public.campaign;
insert into public.character (user_id, name)
values ('10000000-0000-4000-8000-000000000001', 'Unaffiliated Wanderer');
insert into public.character_grant (client_id, character_id)
select c.id, ch.id from public.api_client c, public.character ch
where ch.name = 'Brin Copperkettle';

insert into public.encounter (user_id, name, icon, color, campaign_id, combatants, meta_data)
select '10000000-0000-4000-8000-000000000001', 'Dock ambush', 'swords', 'red', id,
  '{"list": [{"name": "Smuggler", "hp": 12}]}', '{"round": 1}'
from public.campaign;

insert into public.content_update (user_id, type, ref_id, action, data, content_source_id)
select '10000000-0000-4000-8000-000000000002', 'spell', s.id, 'UPDATE',
  '{"description": "A shield of gold coins"}', s.content_source_id
from public.spell s where s.name = 'Gilded Ward';
insert into public.content_update_vote (content_update_id, discord_user_id, vote)
select id, '998877', 'UP' from public.content_update;
