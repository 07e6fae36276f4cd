import {
  type CreateEncounterBody,
  Encounter,
  ENCOUNTER_REQUIRED_FIELDS,
  ENCOUNTER_WRITABLE_FIELDS,
  type FindEncounterBody,
} from "@shared/encounters.ts";
import type { z } from "zod";
import type { Tx } from "../db/pool.ts";
import { fail } from "../envelope.ts";
import { columnValues } from "./columns.ts";

type EncounterRow = z.input<typeof Encounter>;

const COLUMNS = Object.keys(Encounter.shape);

const JSON_COLUMNS: ReadonlySet<(typeof ENCOUNTER_WRITABLE_FIELDS)[number]> = new Set([
  "combatants",
  "meta_data",
]);

/**
 * Creates an encounter for the caller (`id` omitted or -1), or writes the given fields of one they
 * own. The supporter-level check and the campaign ownership check are the database's (triggers on
 * public.encounter).
 */
export async function saveEncounter(tx: Tx, body: CreateEncounterBody): Promise<EncounterRow> {
  const { id, ...patch } = body;
  const values = columnValues(tx, patch, ENCOUNTER_WRITABLE_FIELDS, JSON_COLUMNS);
  const keys = Object.keys(values);
  if (id === undefined || id === -1) {
    const missing = ENCOUNTER_REQUIRED_FIELDS.find((field) => patch[field] === undefined);
    if (missing) throw fail(`Missing required field: ${missing}`, { field: missing });
    const [row] = await tx<EncounterRow[]>`
      insert into public.encounter ${tx(values, keys)} returning ${tx(COLUMNS)}`;
    if (!row) throw new Error("Insert into encounter returned no row");
    return row;
  }
  const assignments = keys.length > 0 ? tx(values, keys) : tx`name = name`;
  const [row] = await tx<EncounterRow[]>`
    update public.encounter set ${assignments} where id = ${id} returning ${tx(COLUMNS)}`;
  // Encounters are visible to their owner only, so a foreign id and a missing one look the same.
  if (!row) throw fail("You do not have access to this encounter");
  return row;
}

/** The caller's encounters matching the filters, sorted by id. */
export async function selectEncounters(tx: Tx, body: FindEncounterBody): Promise<EncounterRow[]> {
  const ids = body.id === undefined ? null : typeof body.id === "number" ? [body.id] : body.id;
  return await tx<EncounterRow[]>`
    select ${tx(COLUMNS)} from public.encounter
    where user_id = (select auth.uid())
      ${ids === null ? tx`` : tx`and id = any(${ids}::bigint[])`}
      ${body.user_id === undefined ? tx`` : tx`and user_id = ${body.user_id}::uuid`}
      ${body.campaign_id === undefined ? tx`` : tx`and campaign_id = ${body.campaign_id}`}
    order by id`;
}
