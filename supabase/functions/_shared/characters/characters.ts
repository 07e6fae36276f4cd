import {
  Character,
  CHARACTER_WRITABLE_FIELDS,
  type CharacterPatch,
  type FindCharacterBody,
  type UpdateCharacterResult,
} from "@shared/characters.ts";
import type { z } from "zod";
import type { Tx } from "../db/pool.ts";
import { fail } from "../envelope.ts";
import { columnValues } from "./columns.ts";

type CharacterRow = z.input<typeof Character>;

/** Every column of a character, in the order of the resource. */
const COLUMNS = Object.keys(Character.shape);

/** The columns read as stored; `details` is read through `detailsAsSeen`. */
const STORED_COLUMNS = COLUMNS.filter((column) => column !== "details");

/**
 * A character's `details` as the caller sees them: its owner also sees the API grants on it under
 * `api_clients.client_access`, the web client's form (the database's helper decides who sees it).
 * For the one row an update answers.
 */
function detailsAsSeen(tx: Tx) {
  return tx`private.details_with_client_access(id, details) as details`;
}

const JSON_COLUMNS: ReadonlySet<(typeof CHARACTER_WRITABLE_FIELDS)[number]> = new Set([
  "inventory",
  "details",
  "notes",
  "roll_history",
  "spells",
  "operation_data",
  "meta_data",
  "options",
  "variants",
  "companions",
  "custom_operations",
  "content_sources",
]);

/**
 * Inserts a character for the caller. Defaults, the character cap and the campaign check are the
 * database's (triggers on public.character).
 */
export async function insertCharacter(tx: Tx, patch: CharacterPatch): Promise<CharacterRow> {
  const values = columnValues(tx, patch, CHARACTER_WRITABLE_FIELDS, JSON_COLUMNS);
  const keys = Object.keys(values);
  const [row] = keys.length > 0
    ? await tx<CharacterRow[]>`
        insert into public.character ${tx(values, keys)} returning ${tx(COLUMNS)}`
    : await tx<CharacterRow[]>`
        insert into public.character default values returning ${tx(COLUMNS)}`;
  if (!row) throw new Error("Insert into character returned no row");
  return row;
}

/**
 * Writes the given fields of a character (a partial update) when the caller may write it and,
 * with `expectedUpdatedAt`, only if nobody changed it since. Answers in the web client's shapes
 * (`UpdateCharacterResult`): `[row]` when written, else `__conflict` with the current row or
 * `__forbidden` with the reason; a refusal writes nothing.
 */
export async function updateCharacter(
  tx: Tx,
  id: number,
  patch: CharacterPatch,
  expectedUpdatedAt?: string,
): Promise<z.input<typeof UpdateCharacterResult>> {
  const values = columnValues(tx, patch, CHARACTER_WRITABLE_FIELDS, JSON_COLUMNS);
  const keys = Object.keys(values);
  // With nothing to write the row is still touched, so access and staleness are checked the same
  // way and updated_at moves as on every update.
  const assignments = keys.length > 0 ? tx(values, keys) : tx`name = name`;
  const expected = expectedUpdatedAt ?? null;
  // One statement, sent at once: the update, and the row as it was when the update matched nothing
  // (to say why). The second arm reads the statement's snapshot: when another write to the row
  // commits while this one waits for its lock, the answer is a conflict with the row as it was
  // (the next call sees the new one), where a second statement would have shown the new row.
  type Answered = CharacterRow & { updated: boolean; writable: boolean | null };
  const rows = await tx<Answered[]>`
    with written as (
      update public.character set ${assignments}
      where id = ${id}
        and (${expected}::timestamptz is null or updated_at = ${expected}::timestamptz)
      returning *
    )
    select true as updated, null::boolean as writable, ${tx(STORED_COLUMNS)}, ${detailsAsSeen(tx)}
    from written
    union all
    select false, private.can_write_character(id, user_id, campaign_id), ${tx(STORED_COLUMNS)},
           ${detailsAsSeen(tx)}
    from public.character
    where id = ${id} and not exists (select from written)`;
  const [row] = rows;
  if (!row) return { __forbidden: true, reason: "NOT_VISIBLE" };
  const { updated, writable, ...character } = row;
  if (updated) return [character];
  if (!writable) return { __forbidden: true, reason: "WRITE_DENIED" };
  return { __conflict: true, character };
}

/**
 * The update path of create-character, in the interface's create-or-update form: the saved row,
 * or a fail (`Character not found`, `You do not have access to this character`).
 */
export async function updateCharacterOrFail(
  tx: Tx,
  id: number,
  patch: CharacterPatch,
): Promise<CharacterRow> {
  const result = await updateCharacter(tx, id, patch);
  if (Array.isArray(result) && result[0]) return result[0];
  if ("__forbidden" in result && result.reason === "NOT_VISIBLE") {
    throw fail("Character not found");
  }
  throw fail("You do not have access to this character");
}

/**
 * The characters find-character returns, sorted by id. Row-level policies decide visibility;
 * on top of them, a signed-in caller without filters gets only their own characters, and public
 * characters of others are reachable by id only. Under an API key the policies already narrow
 * everything to the client's granted characters, so the narrowing does not apply.
 */
export async function selectCharacters(tx: Tx, body: FindCharacterBody): Promise<CharacterRow[]> {
  const ids = body.id === undefined ? null : typeof body.id === "number" ? [body.id] : body.id;
  const filtered = body.user_id !== undefined || body.campaign_id !== undefined;
  const scope = ids !== null
    ? tx``
    : filtered
    ? tx`and ((select private.is_api_client_request()) or c.user_id = (select auth.uid())
              or c.campaign_id in (select private.my_campaign_ids())
              or (select private.is_admin()))`
    : tx`and ((select private.is_api_client_request()) or c.user_id = (select auth.uid()))`;
  // The grants the owner sees are read once for the statement, not per row.
  return await tx<CharacterRow[]>`
    select ${tx(STORED_COLUMNS.map((column) => `c.${column}`))},
      coalesce(jsonb_set(c.details, '{api_clients}', g.api_clients), c.details) as details
    from public.character c
    left join private.my_characters_client_access() g on g.character_id = c.id
    where true
      ${ids === null ? tx`` : tx`and c.id = any(${ids}::bigint[])`}
      ${body.user_id === undefined ? tx`` : tx`and c.user_id = ${body.user_id}::uuid`}
      ${body.campaign_id === undefined ? tx`` : tx`and c.campaign_id = ${body.campaign_id}`}
      ${scope}
    order by c.id`;
}
