import type { Fail } from "../envelope.ts";

/**
 * What this process has learnt about API keys (by hash) from the database, to choose rate
 * buckets and to spare it lookups it already answered. A key the database resolved is counted
 * only in its own bucket; any other key also counts against the client's address, before its
 * lookup, so random keys from one address stop at that address's budget. A key the database
 * refused is refused again from here, without a transaction: keys are random server-made UUIDs, so
 * a refused hash never becomes valid (a deleted client's key stays refused too).
 *
 * Only the bucket and the refusal come from here: a resolved key is still looked up on every
 * request, so revoking it takes effect at once.
 */
export type KeyStanding = { kind: "resolved" } | { kind: "unresolved" } | {
  kind: "refused";
  refusal: Fail;
};

/** How long a lookup's outcome is remembered, and how many keys each list holds (oldest out). */
const REMEMBER_MS = 10 * 60_000;
const MAX_KEYS = 10_000;

const resolved = new Map<string, number>();
const refused = new Map<string, { refusal: Fail; until: number }>();

/** What is known about the key with this hash. */
export function standingOf(keyHash: string): KeyStanding {
  const now = Date.now();
  const bad = refused.get(keyHash);
  if (bad && bad.until > now) return { kind: "refused", refusal: bad.refusal };
  const good = resolved.get(keyHash);
  if (good !== undefined && good > now) return { kind: "resolved" };
  return { kind: "unresolved" };
}

/** Notes that the database resolved the key. */
export function noteResolved(keyHash: string): void {
  remember(resolved, keyHash, Date.now() + REMEMBER_MS);
}

/** Notes that the database refused the key (unknown, or its client deleted). */
export function noteRefused(keyHash: string, refusal: Fail): void {
  resolved.delete(keyHash);
  remember(refused, keyHash, { refusal, until: Date.now() + REMEMBER_MS });
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_KEYS) map.delete(map.keys().next().value!);
  map.set(key, value);
}
