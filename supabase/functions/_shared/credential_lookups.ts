import { withRole } from "./db.ts";

/** An API key resolved to its owner; `clientId` is null when the client was revoked. */
export interface ResolvedKey {
  userId: string;
  clientId: number | null;
}

/**
 * The only reads a request makes outside its own row-level policies, as the service role: resolving
 * an API key's hash, and a per-character grant. Each is one SQL function granted to service_role.
 */
export async function lookupApiKey(keyHash: string): Promise<ResolvedKey | null> {
  const rows = await withRole(
    { role: "service_role" },
    (tx) =>
      tx<{ user_id: string; client_id: number | null }[]>`
      select user_id, client_id from private.resolve_api_key(${keyHash})`,
  );
  const row = rows[0];
  return row ? { userId: row.user_id, clientId: row.client_id } : null;
}

/** The owner of a character when this API client holds a grant for it, else null. */
export async function lookupCharacterGrant(
  clientId: number,
  characterId: number,
): Promise<string | null> {
  const rows = await withRole({ role: "service_role" }, (tx) =>
    tx<{ owner: string | null }[]>`
      select private.resolve_character_grant(${clientId}, ${characterId}) as owner`);
  return rows[0]?.owner ?? null;
}
