-- Every foreign key has an index that leads with its columns: deleting (or re-keying) the row it
-- references finds the referencing rows by that index instead of scanning their table. These six
-- had none, so deleting a trait or an archetype scanned ancestry, class, archetype,
-- versatile_heritage and class_archetype. A test holds every foreign key of the project to it.

-- Section: indexes
create index ancestry_trait_id_idx on public.ancestry (trait_id);
create index class_trait_id_idx on public.class (trait_id);
create index archetype_trait_id_idx on public.archetype (trait_id);
create index versatile_heritage_trait_id_idx on public.versatile_heritage (trait_id);
create index archetype_dedication_feat_id_idx on public.archetype (dedication_feat_id);
create index class_archetype_archetype_id_idx on public.class_archetype (archetype_id);
