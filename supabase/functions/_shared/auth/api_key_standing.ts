import type { Fail } from "../envelope.ts";
import { BoundedMap } from "../bounded_map.ts";

/**
 * What this process has learnt about API keys (by hash) from the database, and about client
 * addresses from the rate limiter, so that keys which do not resolve spend their address's budget
 * (30 a minute) and a flood of them costs no database work once that budget is gone:
 *
 * - a key the database refused is refused again from here, without a transaction, counted
 *   against the key's bucket and its address's. Keys are random server-made UUIDs, so a refused
 *   hash never becomes valid (a deleted client's key stays refused too);
 * - a key not known to be refused is looked up, and when the lookup refuses it, its address is
 *   charged one request;
 * - an address whose budget is spent has every key not yet resolved counted against it before the
 *   lookup: while the budget stays spent, the answer is 429 without one.
 *
 * A key the database resolved counts only in its own bucket and is looked up on every request, so
 * revoking it takes effect at once.
 */
export type KeyStanding = { kind: "resolved" } | { kind: "unresolved" } | {
  kind: "refused";
  refusal: Fail;
};

/** How long a lookup's outcome is remembered, and how many entries each list holds. */
const REMEMBER_MS = 10 * 60_000;
const MAX_ENTRIES = 10_000;

const resolved = new BoundedMap<string, true>(MAX_ENTRIES);
const refused = new BoundedMap<string, Fail>(MAX_ENTRIES);
const spentAddresses = new BoundedMap<string, true>(MAX_ENTRIES);

/** What is known about the key with this hash. */
export function standingOf(keyHash: string): KeyStanding {
  const refusal = refused.get(keyHash);
  if (refusal !== undefined) return { kind: "refused", refusal };
  if (resolved.get(keyHash)) return { kind: "resolved" };
  return { kind: "unresolved" };
}

/** Notes that the database resolved the key. */
export function noteResolved(keyHash: string): void {
  resolved.set(keyHash, true, { until: Date.now() + REMEMBER_MS });
}

/** Notes that the database refused the key (unknown, or its client deleted). */
export function noteRefused(keyHash: string, refusal: Fail): void {
  resolved.delete(keyHash);
  refused.set(keyHash, refusal, { until: Date.now() + REMEMBER_MS });
}

/** Whether the address's budget was spent when the limiter last answered for it. */
export function addressSpent(address: string): boolean {
  return spentAddresses.get(address) === true;
}

/** Notes what the limiter answered for an address: spent until the window resets, or not. */
export function noteAddressWindow(
  address: string,
  window: { success: boolean; reset: number },
): void {
  if (window.success) spentAddresses.delete(address);
  else spentAddresses.set(address, true, { until: window.reset });
}
