-- Approving a change to an ancestry, class, archetype or versatile heritage that names
-- `data.trait_id` keeps the record's own trait in step with it: an UPDATE renames that trait to the
-- record's name; a CREATE links the source's trait of the record's name, making it when missing
-- (the proposal's trait_id is then a placeholder and is not stored). Only traits of the same
-- content source are touched. `moderate_content_update` is re-created whole, with these steps in
-- its apply block, so a failure leaves the proposal PENDING like any other.

-- Renames the trait a record links to after the record. Raises when the record links no trait of
-- its own source.
create function private.rename_linked_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
  v_trait_id bigint;
begin
  execute format('select t.name, t.trait_id from public.%I t where t.id = $1', p_table)
    into v_name, v_trait_id using p_id;
  update public.trait t set name = v_name
  where t.id = v_trait_id and t.content_source_id = p_source_id;
  if not found then
    raise exception 'Content not found: trait % is not in content source %',
      coalesce(v_trait_id::text, 'null'), p_source_id;
  end if;
end
$$;

-- Links a new record to the trait of its name in its source (compared case-insensitively; the
-- oldest when several match), making one when there is none.
create function private.link_new_record_trait(p_table text, p_id bigint, p_source_id bigint)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  v_name text;
  v_trait_id bigint;
begin
  execute format('select t.name from public.%I t where t.id = $1', p_table) into v_name using p_id;
  select t.id into v_trait_id from public.trait t
  where t.content_source_id = p_source_id and lower(t.name) = lower(v_name)
  order by t.id limit 1;
  if v_trait_id is null then
    insert into public.trait (name, content_source_id) values (v_name, p_source_id)
    returning id into v_trait_id;
  end if;
  execute format('update public.%I t set trait_id = $1 where t.id = $2', p_table)
    using v_trait_id, p_id;
end
$$;

create or replace function private.moderate_content_update(
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
