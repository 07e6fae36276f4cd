-- A new encounter needs only its name: the presentation fields and the client's own objects get
-- the values the web app gives a new encounter (its combat icon in the app's blue, no combatants,
-- no notes), so a tool that never shows an encounter need not invent them. Writes still go
-- through the same column grants, policies and triggers.
alter table public.encounter
  alter column icon set default 'combat',
  alter column color set default '#359fdf',
  alter column combatants set default '{"list": []}'::jsonb,
  alter column meta_data set default '{}'::jsonb;
