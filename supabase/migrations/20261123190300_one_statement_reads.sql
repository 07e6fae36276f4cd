-- A request whose handler is one read statement runs as ONE statement on the shared connection
-- pool, instead of BEGIN, an opener, the read and COMMIT on a connection reserved for it: Postgres
-- runs the call as one implicit transaction, so the role and claims the opener sets
-- transaction-locally end with it.
--
-- `read_as` opens the request exactly as the transaction path does (`begin_api_key_request` for a
-- key hash, else `begin_request` with the role and claims: same checks, same PT401/PT403
-- refusals), makes the rest of the transaction read-only, then runs `p_statement`. The statement
-- is planned only then, after the role switch, so privileges and row-level policies apply as the
-- caller. Its text comes from server code constants only; what a caller sent reaches it as the
-- parameters `$1..$10` (text, each cast by the statement: `$1::bigint[]`), never as SQL.
--
-- Like the openers it is not security definer (Postgres refuses a role change there) and carries
-- no settings of its own. The caller gives the result's column definition list.
create function private.read_as(
  p_role text,
  p_claims text,
  p_key_hash text,
  p_statement text,
  p_args text[]
) returns setof record
language plpgsql volatile as $$
begin
  if p_key_hash is not null then
    perform private.begin_api_key_request(p_key_hash, null);
  else
    perform private.begin_request(p_role, p_claims);
  end if;
  -- The opener may stamp an API client's last use; nothing after it may write.
  perform set_config('transaction_read_only', 'on', true);
  return query execute p_statement
    using p_args[1], p_args[2], p_args[3], p_args[4], p_args[5],
      p_args[6], p_args[7], p_args[8], p_args[9], p_args[10];
end
$$;

-- Only the role the server connects as may call it; no request role can. The grant names that
-- role in this one place: the role this migration runs as, which is the one the server connects
-- as (a dedicated connecting role, when there is one, takes this grant and the openers' instead).
revoke all on function private.read_as(text, text, text, text, text[])
  from public, anon, authenticated, service_role;
grant execute on function private.read_as(text, text, text, text, text[]) to current_user;
