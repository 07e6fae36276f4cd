import { deepStrictEqual, equal } from "node:assert/strict";
import { anonKey, call, type CallResult } from "../_harness.ts";

/**
 * Calls `fn` with no credentials at all, and again with the project's anon key as signed-out
 * supabase-js sends it, and asserts the two answers are the same (status and body): a call
 * without credentials is the signed-out caller. Returns the answer without credentials.
 */
export async function callSignedOut(fn: string, body: unknown): Promise<CallResult> {
  const bare = await call(fn, body);
  const key = await anonKey();
  const anon = await call(fn, body, { token: key, headers: { apikey: key } });
  equal(
    bare.status,
    anon.status,
    `${fn}: the same status without credentials as with the anon key`,
  );
  deepStrictEqual(bare.body, anon.body, `${fn}: the same answer without credentials`);
  return bare;
}
