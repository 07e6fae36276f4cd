-- Seed rows for local development and tests. Every name and description below was invented for
-- this project.

-- Content: official sources at the ids the web client names (docs/web-client.md, "Official
-- sources"): a small published Pathfinder core book (id 1) with a few records of every type, the
-- shared core content the client always loads (id 3), and an unpublished official source (id 2)
-- whose rows must stay hidden from everyone but admins. Their `group` values are the web client's
-- shelves (docs/content.md); the shared core sits on none, as the client never offers to turn it
-- off. Every class, ancestry, archetype and versatile heritage names its own trait, as the database
-- would make one otherwise. Every record has the shape the client reads
-- (tests/web_client_seed_test.ts): an item's `meta_data.bulk`, a spell's `heightened.text`, a
-- creature's `details.description`.
insert into public.content_source (id, name, description, is_published, url, "group", meta_data)
overriding system value values
  (1, 'Wayfarer''s Primer', 'A pocket sampler of invented rules content for trying the service.',
    true, 'https://example.test/primer', 'pathfinder-core', '{"source": {"book": "Wayfarer''s Primer"}}'),
  (2, 'Unreleased Almanac', 'Draft material that is not published yet.', false, null, 'playtest',
    '{}'),
  (3, 'Common Ground', 'The everyday actions and gear every game shares, whichever book it uses.',
    true, null, null, '{}');

insert into public.trait (id, content_source_id, name, description, meta_data)
overriding system value values
  (1, 1, 'Ember', 'Effects that carry a small, stubborn heat.', '{"important": true}'),
  (2, 1, 'Rime', 'Effects of thin frost and slow cold.', '{}'),
  (3, 1, 'Whisper', 'Effects that travel as a quiet voice.', '{}'),
  (4, 1, 'Hearthkin', 'Members of the Hearthkin ancestry.', '{"ancestry_trait": true}'),
  (5, 1, 'Lanternbearer', 'Abilities of the Lanternbearer class.', '{"class_trait": true}'),
  (6, 1, 'Cartographer', 'Abilities of the Cartographer archetype.', '{"archetype_trait": true}'),
  (7, 1, 'Mossborn', 'Those of the Mossborn lineage.', '{"versatile_heritage_trait": true}'),
  (8, 2, 'Sealed Sigil', 'A draft trait nobody should see yet.', '{}'),
  (9, 2, 'Draft Class', 'This indicates content from the draft class class.', '{"class_trait": true}'),
  (10, 2, 'Draft Ancestry', 'This indicates content from the draft ancestry ancestry.',
    '{"ancestry_trait": true}'),
  (11, 2, 'Draft Archetype Archetype', 'This indicates content from the draft archetype archetype.',
    '{"archetype_trait": true}'),
  (12, 2, 'Draft Heritage', 'This indicates content from the draft heritage versatile heritage.',
    '{"versatile_heritage_trait": true}');

insert into public.item
  (id, content_source_id, name, level, rarity, description, "group", price, bulk, traits, hands,
   usage, meta_data)
overriding system value values
  (1, 1, 'Lantern of Quiet Hours', 2, 'UNCOMMON',
    'A hooded lantern whose light makes no sound of its own and keeps whispers from carrying.',
    'GENERAL', '{"gp": 30}', '1', '{3}', '1', 'held in 1 hand',
    '{"inventory_label": "lantern", "bulk": {}}'),
  (2, 1, 'Braided Climbing Cord', 0, 'COMMON',
    'Fifty feet of tightly braided cord with a knot every arm''s length.', 'GENERAL',
    '{"sp": 5}', 'L', '{}', null, null, '{"bulk": {}}'),
  (3, 1, 'Emberglass Knife', 1, 'COMMON',
    'A short blade of smoky glass that stays faintly warm to the touch.', 'WEAPON',
    '{"gp": 4}', 'L', '{1}', '1', null, '{"bulk": {}}'),
  (4, 2, 'Prototype Compass', 3, 'RARE', 'It points somewhere. Unfinished.', 'GENERAL',
    '{"gp": 60}', 'L', '{}', null, null, '{"bulk": {}}'),
  (5, 3, 'Travel Satchel', 0, 'COMMON', 'A sturdy shoulder bag with room for a day''s needs.',
    'GENERAL', '{"sp": 1}', 'L', '{}', null, 'worn', '{"bulk": {"capacity": 2, "ignored": 1}}');

insert into public.spell
  (id, content_source_id, name, rank, traditions, description, "cast", range, targets, duration,
   traits, heightened)
overriding system value values
  (1, 1, 'Kindle Spark', 0, '{arcane,primal}',
    'You coax a spark into a nearby wick, tinder pile or pipe bowl.', 'two actions', '30 feet',
    '1 object', null, '{1}',
    '{"text": [{"amount": "+2", "text": "The range grows by 30 feet."}]}'),
  (2, 1, 'Rime Veil', 2, '{primal}',
    'A thin curtain of frost hangs in the air and slows whatever pushes through it.',
    'three actions', '60 feet', null, '1 minute', '{2}', null),
  (3, 1, 'Whispered Errand', 1, '{arcane,occult}',
    'You send a short message that only its recipient hears, carried on the wind.',
    'two actions', '1 mile', '1 creature', null, '{3}', null),
  (4, 2, 'Unfinished Incantation', 3, '{arcane}', 'The last verse is missing.', 'two actions',
    null, null, null, '{}', null);

insert into public.ability_block
  (id, content_source_id, name, type, level, actions, description, prerequisites, traits,
   frequency, trigger)
overriding system value values
  (1, 1, 'Steady Stride', 'action', null, 'ONE-ACTION',
    'You move carefully across unsteady ground without slipping.', '{}', '{}', null, null),
  (2, 1, 'Cartographer Dedication', 'feat', 2, null,
    'You keep a careful map of every road you walk and rarely lose your way.',
    '{trained in Survival}', '{6}', null, null),
  (3, 1, 'Mossborn', 'heritage', null, null,
    'Your family line carries the patience of old forests; moss grows readily on your gear.',
    '{}', '{7}', null, null),
  (4, 1, 'Keen Nose', 'sense', null, null, 'You notice smells others miss.', '{}', '{}', null,
    null),
  (5, 1, 'Lantern Flare', 'class-feature', 1, 'REACTION',
    'Your lantern flares to dazzle a foe who steps into its light.', '{}', '{5}',
    'once per 10 minutes', 'A creature enters your lantern''s light.'),
  (6, 2, 'Hidden Feat', 'feat', 1, null, 'Not ready yet.', '{}', '{}', null, null),
  (7, 2, 'Draft Lineage', 'heritage', null, null, 'Not written yet.', '{}', '{12}', null, null),
  (8, 3, 'Catch Your Breath', 'action', null, 'ONE-ACTION',
    'You pause to steady your breathing before pressing on.', '{}', '{}', null, null);

insert into public.class (id, content_source_id, name, description, skill_training_base, trait_id)
overriding system value values
  (1, 1, 'Lanternbearer', 'Wanderers who guide others through the dark with a kept flame.', 3, 5),
  (2, 2, 'Draft Class', 'An idea for a class.', 2, 9);

insert into public.ancestry (id, content_source_id, name, description, trait_id)
overriding system value values
  (1, 1, 'Hearthkin', 'Small, warm-blooded folk who gather around shared fires.', 4),
  (2, 2, 'Draft Ancestry', 'Not written yet.', 10);

insert into public.archetype (id, content_source_id, name, description, trait_id, dedication_feat_id)
overriding system value values
  (1, 1, 'Cartographer', 'Travellers who chart the roads and wilds they cross.', 6, 2),
  (2, 2, 'Draft Archetype', 'Not written yet.', 11, null);

insert into public.class_archetype
  (id, content_source_id, class_id, archetype_id, name, description, feature_adjustments)
overriding system value values
  (1, 1, 1, 1, 'Lamplighter''s Path', 'A Lanternbearer who maps every road they light.',
    '[{"fa_id": "lamp-1", "type": "ADD", "prev_id": null, "data": {"name": "Road Lamp"}}]'),
  (2, 2, 2, null, 'Draft Path', 'Not written yet.', '[]');

insert into public.versatile_heritage (id, content_source_id, name, description, trait_id, heritage_id)
overriding system value values
  (1, 1, 'Mossborn', 'A lineage touched by old forests, open to any ancestry.', 7, 3),
  (2, 2, 'Draft Heritage', 'Not written yet.', 12, 7);

insert into public.language (id, content_source_id, name, description, speakers, script, rarity)
overriding system value values
  (1, 1, 'Hearthtongue', 'A warm, rolling language spoken around cooking fires.', 'Hearthkin',
    'Ember runes', 'COMMON'),
  (2, 1, 'Wayfarer Cant', 'Chalk marks and hand signs shared by travellers.', 'travellers', null,
    'UNCOMMON'),
  (3, 2, 'Draft Tongue', 'Not written yet.', null, null, 'RARE');

insert into public.background (id, content_source_id, name, description)
overriding system value values
  (1, 1, 'River Ferryhand', 'You poled passengers across a wide, slow river for years.'),
  (2, 1, 'Lamp Keeper', 'You tended the street lamps of a hill town every dusk.'),
  (3, 2, 'Draft Background', 'Not written yet.');

insert into public.creature (id, content_source_id, name, level, rarity, details)
overriding system value values
  (1, 1, 'Gloam Moth', 1, 'COMMON',
    '{"description": "A dusk-coloured moth as wide as a shield, drawn to lantern light."}'),
  (2, 1, 'Cinder Toad', 3, 'UNCOMMON',
    '{"description": "A squat toad whose back glows like banked coals."}'),
  (3, 2, 'Draft Beast', 5, 'RARE', '{"description": "Not written yet."}');

insert into public.hazard (id, content_source_id, name, level, details)
overriding system value values
  (1, 1, 'Slick Moss Patch', 0, '{"description": "A stretch of wet moss that sends the unwary sprawling."}'),
  (2, 2, 'Draft Trap', 2, '{"description": "Not written yet."}');

-- New rows get ids after the seeded ones; a new source's id also comes after the ids reserved for
-- official sources (private.official_source_reserved_ids).
do $$
declare
  t text;
begin
  foreach t in array array['content_source', 'trait', 'item', 'spell', 'class', 'class_archetype',
    'ability_block', 'versatile_heritage', 'language', 'ancestry', 'archetype', 'background',
    'creature', 'hazard']
  loop
    execute format(
      'select setval(pg_get_serial_sequence(%L, ''id''), greatest((select max(id) from public.%I), %s))',
      'public.' || t, t, case when t = 'content_source'
        then '(select max(r) from unnest(private.official_source_reserved_ids()) r)' else '0' end);
  end loop;
end
$$;
