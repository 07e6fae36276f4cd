import type { Tx } from "./db.ts";

/** An API key resolved to its owner; `clientId` is null when the client was revoked. */
export interface ResolvedKey {
  userId: string;
  clientId: number | null;
}

/**
 * The only reads a request makes outside its own row-level policies: resolving an API key's hash,
 * and a per-character grant. Each is one SQL function granted only to service_role, so `tx` must be
 * acting as the service role (`withRole` or `withResolvedRole` in db.ts).
 */
export async function lookupApiKey(tx: Tx, keyHash: string): Promise<ResolvedKey | null> {
  const rows = await tx<{ user_id: string; client_id: number | null }[]>`
    select user_id, client_id from private.resolve_api_key(${keyHash})`;
  const row = rows[0];
  return row ? { userId: row.user_id, clientId: row.client_id } : null;
}

/** The owner of a character when this API client holds a grant for it, else null. */
export async function lookupCharacterGrant(
  tx: Tx,
  clientId: number,
  characterId: number,
): Promise<string | null> {
  const rows = await tx<{ owner: string | null }[]>`
    select private.resolve_character_grant(${clientId}, ${characterId}) as owner`;
  return rows[0]?.owner ?? null;
}
