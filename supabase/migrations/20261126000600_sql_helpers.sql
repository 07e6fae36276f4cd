-- SQL helpers for rules that were written out by hand in several places (issue #25): the
-- supporter-tier refusal, the GAME-MASTER tier check and the readable-source condition. The
-- functions that repeated them are redefined here to use the helpers; what they answer and how
-- they refuse is unchanged (same messages, same `required_tier` detail, same SQLSTATE).

-- Section: helpers
-- Whether a supporter tier is the GAME-MASTER tier, the only one that runs a GM group (whose
-- members it lends supporter level 2). Plain SQL without `set` options, so the planner inlines it
-- wherever it is called: a query calling it is planned as if it held the comparison itself. The
-- API's get-user asks it too rather than keeping its own copy of the number.
create function private.is_game_master(p_supporter_tier integer) returns boolean
language sql immutable as $$
  select p_supporter_tier >= 4
$$;

-- Every supporter-tier cap refuses in one form (more-endpoints section 8): "User does not have
-- access: <what> requires supporter tier <n> or higher", with data.required_tier = n. Raises that
-- when p_user_id's supporter level (private.effective_tier: paid tier, role flags, GM group) is
-- below p_tier. Called only by the security definer cap functions, as their owner: it is granted
-- to no request role.
create function private.require_tier(p_user_id uuid, p_tier integer, p_action text)
returns void
language plpgsql stable set search_path = '' as $$
begin
  if private.effective_tier(p_user_id) < p_tier then
    raise exception 'User does not have access: % requires supporter tier % or higher',
      p_action, p_tier
      using detail = format('{"required_tier": %s}', p_tier);
  end if;
end
$$;

-- The readable-source condition as SQL text, for the statements and policies that are generated
-- with format(): "the source whose id is <p_source_id> (an SQL expression) is one the caller may
-- read", decided on that one source's row, looked up by primary key, by private.source_is_readable
-- (content baseline). Text rather than a boolean function on purpose: a SQL function holding a
-- subquery is never inlined, so a policy calling one per row would run a function call per row
-- where this condition plans as an index lookup the planner can see. Where a call per statement
-- or per written row is enough, private.can_read_source(id) is the same rule as a function.
create function private.readable_source_condition(p_source_id text) returns text
language sql immutable set search_path = '' as $$
  select format(
    'exists (select 1 from public.content_source s where s.id = %s
       and private.source_is_readable(s.id, s.user_id, s.is_published, s.require_key,
         (select auth.uid())))',
    p_source_id)
$$;

-- The functions below are the accounts, content, play and search baselines' own, redefined with
-- the helpers above; each keeps its signature, settings and grants.

-- Accounts: the supporter level a user passes (unchanged but for the GAME-MASTER check).
create or replace function private.effective_tier(p_user_id uuid) returns smallint
language sql stable security definer set search_path = '' as $$
  select coalesce((
    select greatest(
      u.supporter_tier,
      case
        when u.is_community_paragon or u.is_developer or exists (
          select 1
          from public.gm_group_member m
          join public.public_user gm on gm.user_id = m.gm_user_id
          where m.user_id = u.user_id and private.is_game_master(gm.supporter_tier)
        ) then 2
        else 0
      end
    )::smallint
    from public.public_user u
    where u.user_id = p_user_id
  ), 0::smallint)
$$;

-- Accounts: one AI generation of the caller's budget (supporter level 1, 60 an hour).
create or replace function private.claim_ai_request() returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  caller constant uuid := (select auth.uid());
begin
  if caller is null then
    raise exception 'User not found';
  end if;
  perform private.require_tier(caller, 1, 'AI generation');
  perform pg_advisory_xact_lock(hashtext('private.ai_request'), hashtext(caller::text));
  delete from private.ai_request r
  where r.user_id = caller and r.requested_at < now() - interval '1 hour';
  if (select count(*) from private.ai_request r where r.user_id = caller) >= 60 then
    raise exception 'Too many requests, please try again later.'
      using detail = '{"limit": 60, "window_seconds": 3600}';
  end if;
  insert into private.ai_request (user_id) values (caller);
end
$$;

-- Accounts: joining a GAME-MASTER's group (false without saying which check failed).
create or replace function private.join_gm_group(p_gm_user_id uuid, p_access_code text)
returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
  group_code text;
begin
  if me is null or (select private.is_api_client_request()) or me = p_gm_user_id then
    return false;
  end if;
  if private.is_game_master((select u.supporter_tier from public.public_user u where u.user_id = me))
  then
    return false;
  end if;
  select g.access_code into group_code
  from public.gm_group g
  join public.public_user gm on gm.user_id = g.gm_user_id
  where g.gm_user_id = p_gm_user_id and private.is_game_master(gm.supporter_tier)
  for update of g;
  if group_code is null or group_code <> p_access_code then
    return false;
  end if;
  if (
    select count(*) from public.gm_group_member m
    where m.gm_user_id = p_gm_user_id and m.user_id <> me
  ) >= 99 then
    return false;
  end if;
  insert into public.gm_group_member (user_id, gm_user_id)
  values (me, p_gm_user_id)
  on conflict (user_id) do update set gm_user_id = excluded.gm_user_id, added_at = now();
  return true;
end
$$;

-- Accounts: a new access code for the calling GAME-MASTER supporter.
create or replace function private.regenerate_gm_code() returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  me constant uuid := (select auth.uid());
begin
  if me is null or (select private.is_api_client_request()) then
    return false;
  end if;
  if not private.is_game_master(
    coalesce((select u.supporter_tier from public.public_user u where u.user_id = me), 0)
  ) then
    return false;
  end if;
  insert into public.gm_group (gm_user_id, access_code)
  values (me, private.random_base36(12))
  on conflict (gm_user_id) do update
    set access_code = excluded.access_code, updated_at = now();
  return true;
end
$$;

-- Accounts: the caller's group members; empty unless the caller holds the GAME-MASTER tier.
create or replace function private.gm_group_members()
returns table (user_id uuid, display_name text, image_url text, added_at timestamptz)
language sql stable security definer set search_path = '' as $$
  select m.user_id, u.display_name, u.image_url, m.added_at
  from public.gm_group_member m
  join public.public_user u on u.user_id = m.user_id
  where m.gm_user_id = (select auth.uid())
    and not (select private.is_api_client_request())
    and exists (
      select 1 from public.public_user gm
      where gm.user_id = m.gm_user_id and private.is_game_master(gm.supporter_tier)
    )
  order by m.added_at, m.user_id
$$;

-- Accounts: uploads need supporter level 1; rows recorded with no signed-in user are maintenance.
create or replace function private.enforce_upload_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is not null then
    perform private.require_tier((select auth.uid()), 1, 'uploading files');
  end if;
  return new;
end
$$;

-- private.can_upload_public_files was the upload trigger's own copy of the tier check; nothing else
-- called it (no endpoint, no policy).
drop function private.can_upload_public_files();

-- Content: a new source belongs to its creator; a homebrew one needs supporter tier 2 (admins are
-- exempt). The tier is the creator's, who is the caller by then.
create or replace function private.claim_new_content_source() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select auth.uid()) is null then
    return new;
  end if;
  new.user_id := (select auth.uid());
  -- Lock the owner's row so a concurrent tier change cannot slip between check and insert.
  perform 1 from public.public_user u where u.user_id = new.user_id for update;
  if not (select private.is_admin()) then
    perform private.require_tier(new.user_id, 2, 'creating a homebrew content source');
  end if;
  return new;
end
$$;

-- Content: a source's subscriber count, 0 for a source the caller may not read. One call per
-- request, so the rule is asked as a function.
create or replace function private.content_source_subscriber_count(p_source_id bigint)
returns bigint
language sql stable security definer set search_path = '' as $$
  select count(*) from public.public_user u
  where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', p_source_id))
    and private.can_read_source(p_source_id)
$$;

-- Play: a new campaign needs supporter level 1 and gets a fresh join key.
create or replace function private.before_campaign_insert() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_tier(new.user_id, 1, 'creating a campaign');
  new.join_key := private.random_base36(6) || '-' || private.random_base36(6);
  return new;
end
$$;

-- Play: a new encounter needs supporter level 1.
create or replace function private.enforce_encounter_tier() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_tier(new.user_id, 1, 'creating an encounter');
  return new;
end
$$;

-- Search: advanced mode's contains-matches (search baseline), with the readable-source condition
-- from its helper. The statement it builds is the same as before.
create or replace function private.search_matching_ids(
  p_table text,
  p_column text,
  p_all text[],
  p_any text[]
) returns setof bigint
language plpgsql stable security definer set search_path = '' rows 500 as $$
declare
  conditions text[] := '{}';
  alternatives text[] := '{}';
begin
  if not exists (
    select 1 from private.content_table c
    where c.name = p_table and p_column = any (c.searched_columns)
  ) then
    raise exception 'Invalid value: % of % is not searchable', p_column, p_table;
  end if;
  for i in 1 .. coalesce(cardinality(p_all), 0) loop
    conditions := conditions || format('t.%I ilike $1[%s]', p_column, i);
  end loop;
  for i in 1 .. coalesce(cardinality(p_any), 0) loop
    alternatives := alternatives || format('t.%I ilike $2[%s]', p_column, i);
  end loop;
  if cardinality(alternatives) > 0 then
    conditions := conditions || ('(' || array_to_string(alternatives, ' or ') || ')');
  end if;
  if cardinality(conditions) = 0 then
    raise exception 'Invalid value: no pattern to search % of % for', p_column, p_table;
  end if;
  -- EXECUTE plans with the patterns as constants, so the trigram index serves each of them.
  return query execute format(
    'select t.id from public.%I t where %s and %s',
    p_table, private.readable_source_condition('t.content_source_id'),
    array_to_string(conditions, ' and ')
  ) using p_all, p_any;
end
$$;

-- Section: policies
-- Moderation: the proposal policies, with the readable-source condition from its helper. The
-- policies are the same as before (the planner sees the same condition).
do $$
declare
  readable constant text := private.readable_source_condition('content_update.content_source_id');
begin
  drop policy "Proposals can be read by their author and by readers of their source"
    on public.content_update;
  execute format(
    'create policy "Proposals can be read by their author and by readers of their source"
       on public.content_update for select to authenticated, anon
       using (user_id = (select auth.uid()) or %s)', readable);
  drop policy "Signed-in users can propose changes to sources they can read"
    on public.content_update;
  execute format(
    'create policy "Signed-in users can propose changes to sources they can read"
       on public.content_update for insert to authenticated
       with check (user_id = (select auth.uid()) and %s)', readable);
end
$$;

-- Section: grants
-- get-user asks whether the caller's tier is the GAME-MASTER one. require_tier and
-- readable_source_condition are the migrations' and the definer functions' only.
grant execute on function private.is_game_master(integer) to authenticated;
