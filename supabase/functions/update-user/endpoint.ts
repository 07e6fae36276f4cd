import { accountsEndpoints } from "@shared/contract/accounts.ts";
import type { ApiClientListEntry } from "@shared/users.ts";
import type postgres from "postgres";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { sha256Hex } from "../_shared/sha256.ts";

/** The profile columns a user may write; the database's column grants allow exactly these. */
const EDITABLE = [
  "display_name",
  "summary",
  "image_url",
  "background_image_url",
  "organized_play_id",
  "site_theme",
  "subscribed_content_sources",
] as const;

/**
 * The account page's API client list as private.sync_api_clients takes it: each key replaced by
 * its hash, so the key never reaches the database.
 */
function clientsToSync(clients: readonly ApiClientListEntry[]): postgres.JSONValue {
  return clients.map(({ id, name, description, api_key }) => ({
    id: id === undefined ? null : String(id),
    name,
    description: description ?? null,
    key_hash: api_key === undefined ? null : sha256Hex(api_key),
  }));
}

export const handler = endpoint(accountsEndpoints, "update-user", {
  run: async ({ body, tx }) => {
    const clients = body.api?.clients;
    // Synced ahead of the profile's update, in the same round trip.
    if (clients !== undefined) {
      tx`select private.sync_api_clients(${tx.json(clientsToSync(clients))})`;
    }
    const changes: Record<string, unknown> = {};
    for (const column of EDITABLE) {
      const value = body[column];
      if (value === undefined) continue;
      // JSON columns go as JSON (postgres.js would send a plain array as a Postgres array); zod
      // has already checked these values are plain JSON.
      changes[column] = typeof value === "object" && value !== null
        ? tx.json(value as postgres.JSONValue)
        : value;
    }
    const columns = Object.keys(changes);
    const updated = columns.length === 0
      ? await tx`select 1 from public.public_user where user_id = (select auth.uid())`
      : await tx`update public.public_user set ${tx(changes as Record<string, string>, columns)}
                 where user_id = (select auth.uid()) returning 1`;
    if (updated.length === 0) throw fail("User not found");
    return true as const;
  },
});
