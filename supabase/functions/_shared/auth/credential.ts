import type { AuthKind } from "@shared/contract.ts";
import { Fail } from "../envelope.ts";
import { refusals } from "../refusals.ts";
import type { BucketKind } from "../rate_limit/buckets.ts";
import { sha256Hex } from "../sha256.ts";
import { addressSpent, standingOf } from "./api_key_standing.ts";
import { classifyBearer, isOneOf } from "./classify_bearer.ts";
import { keyProof } from "./signed_api_key.ts";
import { env } from "../env.ts";
import type { Identity } from "./identity.ts";
import { verifyToken } from "./jwt.ts";

/** The credentials an endpoint accepts (the contract's own type). */
export type { AuthKind };

/** A rate bucket a request counts against. */
export interface Bucket {
  kind: BucketKind;
  identifier: string;
}

/** A credential that was not refused: the caller's identity and its rate buckets. */
export type UsableCredential =
  & { buckets: readonly Bucket[] }
  & (
    | Exclude<Identity, { kind: "api_key" }>
    | Extract<Identity, { kind: "api_key" }> & {
      /** The address to charge if the lookup refuses the key (null: charged up front, or known). */
      chargeOnRefusal: string | null;
    }
  );

/**
 * A request's credential, resolved once from its Authorization header, with the buckets it counts
 * against. `refused` carries the refusal to answer after the rate limit and the method check.
 * An API key is resolved by the database when the request's transaction opens.
 */
export type Credential =
  | UsableCredential
  | { kind: "refused"; refusal: Fail; buckets: readonly Bucket[] };

/**
 * Resolves the credential of a request to an endpoint accepting `accepted`. Buckets: a usable
 * token counts in its own (hashed) bucket; an API key that does not resolve also counts against
 * the client's address (`api_key_standing.ts` says when); the anon key (shared by every signed-out
 * visitor), no credential (the same signed-out caller) and anything unrecognised count against the
 * client's address only.
 */
export async function resolveCredential(
  header: string | null,
  accepted: readonly AuthKind[],
  serviceSecret: string | undefined,
  clientIp: string,
): Promise<Credential> {
  const byAddress: Bucket = { kind: "ip", identifier: clientIp };
  if (accepted.length === 1 && accepted[0] === "none") {
    return { kind: "none", buckets: [byAddress] };
  }
  const bearer = classifyBearer(header, serviceSecret);
  const serviceOnly = accepted.length === 1 && accepted[0] === "service";
  const refuse = (refusal: Fail, ...buckets: Bucket[]): Credential => ({
    kind: "refused",
    refusal,
    buckets,
  });
  // No endpoint takes API keys without JWTs, so "not accepted" means one of these two.
  const notAccepted = serviceOnly ? refusals.serviceSecretOnly : refusals.apiKeyNotAccepted;
  switch (bearer.kind) {
    case "none":
      // No credential is the signed-out caller, as the project's public anon key is: it widens
      // nothing that key does not already give anyone.
      if (accepted.includes("jwt")) return { kind: "anon", buckets: [byAddress] };
      return accepted.includes("none")
        ? { kind: "none", buckets: [byAddress] }
        : refuse(notAccepted(), byAddress);
    case "malformed":
      return refuse(serviceOnly ? notAccepted() : refusals.malformedBearer(), byAddress);
    case "secret_key":
      return refuse(serviceOnly ? notAccepted() : refusals.secretKeyBearer(), byAddress);
    case "misplaced":
      return refuse(refusals.onlyProjectKeyInApiKey(), byAddress);
    case "publishable": {
      // Checked against the platform's list without a lookup: a made-up key is refused at once.
      if (!isOneOf(bearer.token, publishableKeys)) {
        return refuse(serviceOnly ? notAccepted() : refusals.unknownPublishableKey(), byAddress);
      }
      const anon: Credential = { kind: "anon", buckets: [byAddress] };
      return accepted.includes("jwt") ? anon : refuse(notAccepted(), byAddress);
    }
    case "service":
      return { kind: "service", buckets: [{ kind: "service", identifier: bearer.token }] };
    case "api_key": {
      const byKey: Bucket = { kind: "api_key", identifier: bearer.token };
      if (!accepted.includes("api_key")) return refuse(notAccepted(), byKey);
      const keyHash = sha256Hex(bearer.token);
      // A key whose shape proves the server issued it is looked up on its own budget alone, and
      // a made-up key of that shape is refused here, counted against its address.
      const proof = keyProof(bearer.token);
      if (proof === "forged") return refuse(refusals.invalidApiKey(), byKey, byAddress);
      const standing = standingOf(keyHash);
      // A revoked issued key is refused from memory too, without a lookup per use.
      if (standing.kind === "refused") return refuse(standing.refusal, byKey, byAddress);
      if (proof === "issued") {
        return { kind: "api_key", keyHash, chargeOnRefusal: null, buckets: [byKey] };
      }
      if (standing.kind === "resolved" || !addressSpent(clientIp)) {
        const chargeOnRefusal = standing.kind === "resolved" ? null : clientIp;
        return { kind: "api_key", keyHash, chargeOnRefusal, buckets: [byKey] };
      }
      return { kind: "api_key", keyHash, chargeOnRefusal: null, buckets: [byKey, byAddress] };
    }
    case "jwt": {
      const verified = await verifyToken(bearer.token).catch(asFail);
      // A token that fails verification is unrecognised auth: it must not buy a fresh budget.
      if (verified instanceof Fail) {
        return refuse(accepted.includes("jwt") ? verified : notAccepted(), byAddress);
      }
      if (bearer.projectKeyOnly && verified.role !== "anon") {
        return refuse(refusals.onlyProjectKeyInApiKey(), byAddress);
      }
      const credential: Credential = verified.role === "anon"
        ? { kind: "anon", buckets: [byAddress] }
        : {
          kind: "jwt",
          claims: verified.claims,
          buckets: [{ kind: "jwt", identifier: bearer.token }],
        };
      if (!accepted.includes("jwt")) return refuse(notAccepted(), ...credential.buckets);
      return credential;
    }
  }
}

/** A refusal of the token; anything else (the project's keys out of reach) is not the caller's. */
function asFail(e: unknown): Fail {
  if (e instanceof Fail) return e;
  throw e;
}

/** The project's publishable keys, as the platform lists them. */
const publishableKeys: readonly string[] = Object.values(env.SUPABASE_PUBLISHABLE_KEYS ?? {});
