-- Finds list rows ordered by name, then id, and a find without id reads them through a cursor
-- while its answer is sent. With an index in that order, the cursor's plan returns its first rows
-- without sorting the whole result first: the first byte no longer waits for every row.
create index ability_block_name_id_idx on public.ability_block (name, id);
create index ancestry_name_id_idx on public.ancestry (name, id);
create index archetype_name_id_idx on public.archetype (name, id);
create index background_name_id_idx on public.background (name, id);
create index class_name_id_idx on public.class (name, id);
create index class_archetype_name_id_idx on public.class_archetype (name, id);
create index content_source_name_id_idx on public.content_source (name, id);
create index creature_name_id_idx on public.creature (name, id);
create index hazard_name_id_idx on public.hazard (name, id);
create index item_name_id_idx on public.item (name, id);
create index language_name_id_idx on public.language (name, id);
create index spell_name_id_idx on public.spell (name, id);
create index trait_name_id_idx on public.trait (name, id);
create index versatile_heritage_name_id_idx on public.versatile_heritage (name, id);
