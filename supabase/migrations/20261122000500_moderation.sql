-- Moderation: community errata. A signed-in user proposes a change to content, the moderation bot
-- posts it, moderators vote and approve or reject it, and an approval applies the change. Every
-- write the bot's requests make lives in one function, private.moderate_content_update, granted
-- only to the service role.

-- Section: setup
create type public.content_update_action as enum ('UPDATE', 'CREATE', 'DELETE');
create type public.content_update_state as enum ('PENDING', 'APPROVED', 'REJECTED');
create type public.content_update_vote_kind as enum ('UP', 'DOWN');

-- Section: tables
create table public.content_update (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  user_id uuid not null default auth.uid()
    references public.public_user (user_id) on delete cascade,
  -- Content types as shared/enums.ts ContentType names them: the moderated content tables of
  -- private.content_table and `content-source`, as private.content_update_table (written from
  -- that list by the content baseline's private.build_content_lists) accepts them, so the types
  -- moderation accepts are written in one place.
  type text not null check (private.content_update_table(type) is not null),
  -- The record changed or deleted; for CREATE, the record created once approved.
  ref_id bigint,
  action public.content_update_action not null,
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object'),
  content_source_id bigint not null references public.content_source (id) on delete cascade,
  state public.content_update_state not null default 'PENDING',
  -- The moderator who approved or rejected it.
  decided_by_discord_user_id text check (char_length(decided_by_discord_user_id) between 1 and 64),
  decided_by_discord_user_name text
    check (char_length(decided_by_discord_user_name) between 1 and 100),
  decided_at timestamptz,
  -- The bot's message for this proposal: how the bot names it when moderators act.
  discord_msg_id text unique check (char_length(discord_msg_id) between 1 and 64),
  constraint content_update_ref_id_required check (action = 'CREATE' or ref_id is not null),
  constraint content_update_decision_recorded check ((state = 'PENDING') = (decided_at is null))
);

-- One row per voter: a new vote replaces that voter's earlier one.
create table public.content_update_vote (
  content_update_id bigint not null references public.content_update (id) on delete cascade,
  discord_user_id text not null check (char_length(discord_user_id) between 1 and 64),
  vote public.content_update_vote_kind not null,
  voted_at timestamptz not null default now(),
  primary key (content_update_id, discord_user_id)
);

-- Section: indexes (policy columns and filters)
create index content_update_user_id_idx on public.content_update (user_id, state);
create index content_update_source_idx on public.content_update (content_source_id);
create index content_update_state_idx on public.content_update (state, id);

-- Section: helpers
-- The content table a content type is stored in, or null for a type moderation does not accept, is
-- private.content_update_table(type), written from the list of content tables (content baseline).

-- The columns a proposal may write for a content type: everything but ids, timestamps, the source
-- (content never moves between sources) and a source's ownership and access settings.
create function private.content_update_fields(p_type text) returns text[]
language sql stable set search_path = '' as $$
  select coalesce(array_agg(a.attname::text order by a.attnum), '{}')
  from pg_catalog.pg_attribute a
  where a.attrelid = to_regclass('public.' || quote_ident(private.content_update_table(p_type)))
    and a.attnum > 0 and not a.attisdropped
    and a.attname not in ('id', 'created_at', 'updated_at', 'content_source_id', 'user_id', 'keys',
      'require_key', 'is_published')
$$;

-- Records the bot's message id for the caller's own proposal, once. Security definer because
-- users may not write this column; the checks here (own proposal, no id yet) are all it allows.
create function private.record_content_update_message(p_id bigint, p_discord_msg_id text)
returns boolean
language sql volatile security definer set search_path = '' as $$
  with saved as (
    update public.content_update cu set discord_msg_id = p_discord_msg_id
    where cu.id = p_id and cu.user_id = (select auth.uid()) and cu.discord_msg_id is null
    returning 1
  )
  select exists (select 1 from saved)
$$;

-- Approving a change to an ancestry, class, archetype or versatile heritage that names
-- `data.trait_id` keeps the record's own trait in step with it: an UPDATE renames that trait to the
-- record's name; a CREATE links the source's trait of the record's name, making it when missing
-- (the proposal's trait_id is then a placeholder and is not stored). Only traits of the same
-- content source are touched; both steps run inside moderate_content_update's apply block, so a
-- failure leaves the proposal PENDING like any other.

-- Renames the trait a record links to after the record (private.linked_trait_name, content
-- baseline). Raises when the record links no trait of its own source.
create function private.rename_linked_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
  v_trait_id bigint;
begin
  execute format('select t.name, t.trait_id from public.%I t where t.id = $1', p_table)
    into v_name, v_trait_id using p_id;
  update public.trait t set name = private.linked_trait_name(p_table, v_name)
  where t.id = v_trait_id and t.content_source_id = p_source_id;
  if not found then
    raise exception 'Content not found: trait % is not in content source %',
      coalesce(v_trait_id::text, 'null'), p_source_id;
  end if;
end
$$;

-- Links a new record to the trait of its name in its source (compared case-insensitively; the
-- oldest when several match), making one when there is none (private.find_or_make_linked_trait,
-- content baseline, which names traits as the linked-trait trigger does).
create function private.link_new_record_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
begin
  execute format('select t.name from public.%I t where t.id = $1', p_table) into v_name using p_id;
  execute format('update public.%I t set trait_id = $1 where t.id = $2', p_table)
    using private.find_or_make_linked_trait(p_table, v_name, p_source_id), p_id;
end
$$;

-- The moderation bot's one write path, granted only to the service role: every elevated write a
-- request makes on behalf of the bot is here, not in TypeScript.
--   APPROVE: claims the proposal atomically (only a PENDING one; concurrent deliveries wait on the
--     row lock and then find it APPROVED, so the change applies exactly once and repeats succeed),
--     applies it to the content table for its type, keeps a linked trait in step (above), and
--     makes the author a community paragon at 100 approved proposals. Any failure raises, which
--     rolls the claim back: it stays PENDING.
--   REJECT: marks a PENDING proposal REJECTED. APPROVED and REJECTED are final.
--   UPVOTE / DOWNVOTE: one vote per voter on a PENDING proposal; a new vote replaces the old one.
create function private.moderate_content_update(
  p_discord_msg_id text,
  p_discord_user_id text,
  p_discord_user_name text,
  p_state text
) returns public.content_update_state
language plpgsql volatile security definer set search_path = '' as $$
declare
  cu public.content_update;
  v_table text;
  v_fields text[];
  v_columns text;
  v_values text;
  v_rows bigint;
  v_created bigint;
  v_data jsonb;
  v_linked boolean;
begin
  if p_state not in ('APPROVE', 'REJECT', 'UPVOTE', 'DOWNVOTE') then
    raise exception 'Invalid value for state: expected one of APPROVE, REJECT, UPVOTE, DOWNVOTE';
  end if;

  if p_state in ('UPVOTE', 'DOWNVOTE') then
    -- A share lock: a decision waits for votes in flight, and a vote sees a decision made first.
    select * into cu from public.content_update c
    where c.discord_msg_id = p_discord_msg_id for share;
    if not found then
      raise exception 'Content update not found';
    end if;
    if cu.state <> 'PENDING' then
      raise exception 'Content update already %', lower(cu.state::text);
    end if;
    insert into public.content_update_vote (content_update_id, discord_user_id, vote)
    values (cu.id, p_discord_user_id,
      case p_state when 'UPVOTE' then 'UP' else 'DOWN' end::public.content_update_vote_kind)
    on conflict (content_update_id, discord_user_id)
      do update set vote = excluded.vote, voted_at = now();
    return cu.state;
  end if;

  -- The claim: only a PENDING proposal moves; the row lock serialises concurrent deliveries.
  update public.content_update c
  set state = case p_state when 'APPROVE' then 'APPROVED' else 'REJECTED' end
      ::public.content_update_state,
    decided_by_discord_user_id = p_discord_user_id,
    decided_by_discord_user_name = p_discord_user_name,
    decided_at = now()
  where c.discord_msg_id = p_discord_msg_id and c.state = 'PENDING'
  returning * into cu;

  if not found then
    select * into cu from public.content_update c where c.discord_msg_id = p_discord_msg_id;
    if not found then
      raise exception 'Content update not found';
    end if;
    -- The same decision delivered again is answered as done; the other one is refused.
    if (p_state = 'APPROVE') = (cu.state = 'APPROVED') then
      return cu.state;
    end if;
    raise exception 'Content update already %', lower(cu.state::text);
  end if;

  if p_state = 'REJECT' then
    return cu.state;
  end if;

  -- Apply the approved change. Fields were checked when the proposal was made; they are
  -- re-checked here because the tables may have changed since.
  v_table := private.content_update_table(cu.type);
  v_fields := private.content_update_fields(cu.type);
  if v_table is null then
    raise exception 'Invalid content type: %', cu.type;
  end if;
  -- A new record's trait is found or made by name below, so a placeholder trait_id is not stored.
  v_linked := v_table in ('ancestry', 'class', 'archetype', 'versatile_heritage')
    and cu.data ? 'trait_id';
  v_data := case when v_linked and cu.action = 'CREATE' then cu.data - 'trait_id' else cu.data end;
  select string_agg(quote_ident(k), ', ' order by k), string_agg('r.' || quote_ident(k), ', ' order by k)
  into v_columns, v_values
  from jsonb_object_keys(v_data) k where k = any (v_fields);

  begin
    if cu.action = 'UPDATE' then
      if v_columns is null then
        raise exception 'Invalid value for data: an update must change at least one field';
      end if;
      -- Partial: only the proposed columns change; the record stays in its source.
      execute format(
        'update public.%I t set (%s) = (select %s from jsonb_populate_record(null::public.%I, $1) r)
         where t.id = $2 and %s',
        v_table, v_columns, v_values, v_table,
        case when v_table = 'content_source' then 't.id = $3' else 't.content_source_id = $3' end
      ) using v_data, cu.ref_id, cu.content_source_id;
      get diagnostics v_rows = row_count;
      if v_rows = 0 then
        raise exception 'Content not found: % % is not in content source %',
          cu.type, cu.ref_id, cu.content_source_id;
      end if;
      if v_linked then
        perform private.rename_linked_trait(v_table, cu.ref_id, cu.content_source_id);
      end if;
    elsif cu.action = 'CREATE' then
      if v_table = 'content_source' then
        raise exception 'Invalid update action: a content source can only be updated';
      end if;
      execute format(
        'insert into public.%I (content_source_id%s)
         select $2%s from jsonb_populate_record(null::public.%I, $1) r returning id',
        v_table, coalesce(', ' || v_columns, ''), coalesce(', ' || v_values, ''), v_table
      ) using v_data, cu.content_source_id into v_created;
      update public.content_update c set ref_id = v_created where c.id = cu.id;
      if v_linked then
        perform private.link_new_record_trait(v_table, v_created, cu.content_source_id);
      end if;
    elsif cu.action = 'DELETE' then
      if v_table = 'content_source' then
        raise exception 'Invalid update action: a content source can only be updated';
      end if;
      execute format('delete from public.%I t where t.id = $1 and t.content_source_id = $2',
        v_table) using cu.ref_id, cu.content_source_id;
      get diagnostics v_rows = row_count;
      if v_rows = 0 then
        raise exception 'Content not found: % % is not in content source %',
          cu.type, cu.ref_id, cu.content_source_id;
      end if;
    end if;
  exception
    when raise_exception then
      raise;
    when others then
      raise exception 'Could not apply content update %: %', cu.id, sqlerrm;
  end;

  update public.public_user u set is_community_paragon = true
  where u.user_id = cu.user_id and not u.is_community_paragon
    and (select count(*) from public.content_update c
         where c.user_id = cu.user_id and c.state = 'APPROVED') >= 100;

  return cu.state;
end
$$;

-- Section: policies
alter table public.content_update enable row level security;
alter table public.content_update_vote enable row level security;

-- A proposal is readable where its source is, decided on that source's row by the content
-- baseline's rule (the condition private.readable_source_condition writes). Signed-out visitors
-- read the community's proposals too: only those on sources readable without an account, which
-- any account could read the moment it signs up. Proposals may be made on sources the caller may
-- read.
do $$
declare
  readable constant text := private.readable_source_condition('content_update.content_source_id');
begin
  execute format(
    'create policy "Proposals can be read by their author and by readers of their source"
       on public.content_update for select to authenticated, anon
       using (user_id = (select auth.uid()) or %s)', readable);
  execute format(
    'create policy "Signed-in users can propose changes to sources they can read"
       on public.content_update for insert to authenticated
       with check (user_id = (select auth.uid()) and %s)', readable);
end
$$;

create policy "Votes can be read with their proposal" on public.content_update_vote
  for select to authenticated, anon
  using (content_update_id in (select cu.id from public.content_update cu));

-- Section: triggers
-- A proposal is checked when it is made, so moderators only see changes that can apply: known
-- fields of the right types, the fields a new record needs, and an existing target in the source.
-- Not security definer: the target is looked up under the caller's own read policies.
create function private.check_content_update() returns trigger
language plpgsql set search_path = '' as $$
declare
  v_table text := private.content_update_table(new.type);
  v_fields text[] := private.content_update_fields(new.type);
  v_unknown text;
  v_missing text;
  v_exists boolean;
begin
  if v_table is null then
    raise exception 'Invalid content type: %', new.type;
  end if;
  if new.action <> 'CREATE' and new.ref_id is null then
    raise exception 'Missing required field: ref_id';
  end if;
  if v_table = 'content_source'
    and (new.action <> 'UPDATE' or new.ref_id is distinct from new.content_source_id) then
    raise exception 'Invalid update action: a content source can only be updated, with ref_id equal to content_source_id';
  end if;
  select string_agg(k, ', ' order by k) into v_unknown
  from jsonb_object_keys(new.data) k where k <> all (v_fields);
  if v_unknown is not null then
    raise exception 'Invalid value for data: % has no field %', new.type, v_unknown;
  end if;
  if new.action = 'UPDATE' and new.data = '{}'::jsonb then
    raise exception 'Invalid value for data: an update must change at least one field';
  end if;
  -- Raises on a value of the wrong type (an unknown enum value, text for a number).
  execute format('select jsonb_populate_record(null::public.%I, $1)', v_table) using new.data;
  if new.action = 'CREATE' then
    select string_agg(a.attname::text, ', ' order by a.attnum) into v_missing
    from pg_catalog.pg_attribute a
    where a.attrelid = to_regclass('public.' || quote_ident(v_table))
      and a.attnum > 0 and not a.attisdropped and a.attnotnull and not a.atthasdef
      and a.attidentity = '' and a.attname::text = any (v_fields)
      and coalesce(jsonb_typeof(new.data -> a.attname::text), 'null') = 'null';
    if v_missing is not null then
      raise exception 'Missing required field: data.%', v_missing;
    end if;
  else
    execute format(
      'select exists (select 1 from public.%I t where t.id = $1 and %s)',
      v_table,
      case when v_table = 'content_source' then 'true' else 't.content_source_id = $2' end
    ) using new.ref_id, new.content_source_id into v_exists;
    if not v_exists then
      raise exception 'Content not found: % % is not in content source %',
        new.type, new.ref_id, new.content_source_id;
    end if;
  end if;
  return new;
end
$$;

create trigger check_content_update before insert on public.content_update
  for each row execute function private.check_content_update();

-- Section: grants
-- Users propose (the columns below) and read; state, votes, decision and message id are written
-- only through the functions below.
grant select on public.content_update, public.content_update_vote to authenticated, anon;
grant insert (type, ref_id, action, data, content_source_id) on public.content_update
  to authenticated;

-- content_update_table is also the check on `type`: the roles that insert proposals may call it
-- (and the owner, for the bot's definer function).
grant execute on function private.content_update_table(text) to authenticated, service_role;
grant execute on function private.content_update_fields(text) to authenticated, service_role;
grant execute on function private.record_content_update_message(bigint, text) to authenticated;
grant execute on function private.moderate_content_update(text, text, text, text) to service_role;
