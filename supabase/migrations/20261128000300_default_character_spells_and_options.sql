-- Changes rows of public.character: an empty spells object becomes null (no spells yet)
--
-- A new character's defaults are the web client's (docs/web-client.md, "New characters"): no
-- `spells` until the builder fills them (the client's spell and rest handlers build their own
-- structure from `spells ?? {...}`, and an empty object skips it), and `options` with the dice
-- roller and prerequisite detection turned on, as the reference's character table does.
-- Existing characters with the old empty `spells` object hold nothing there, so it becomes null
-- too; existing `options` are the owners' choices and stay as they are.
alter table public.character
  alter column spells drop not null,
  alter column spells drop default,
  alter column options set default '{"dice_roller": true, "auto_detect_prerequisites": true}';

update public.character set spells = null where spells = '{}'::jsonb;
