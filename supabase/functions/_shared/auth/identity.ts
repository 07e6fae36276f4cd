import type { Claims } from "./jwt.ts";

/**
 * Who a request acts as, from its bearer to its transaction: nobody (no credential, or the
 * project's anon or publishable key), the moderation service, a user's session with its verified
 * claims, or an API key that the database resolves when the transaction opens. Which user that is
 * the database knows (`auth.uid()`); handlers see only the kind.
 */
export type Identity =
  | { kind: "none" }
  | { kind: "anon" }
  | { kind: "service" }
  | { kind: "jwt"; claims: Claims }
  | { kind: "api_key"; keyHash: string };

/** Whether a request acts for a user: a session, or an API key's client (a key has an owner). */
export function actsForUser(caller: Pick<Identity, "kind">): boolean {
  return caller.kind === "jwt" || caller.kind === "api_key";
}
