/** What an Authorization header carries, decided from its shape alone. */
export type Bearer =
  | { kind: "none" }
  | { kind: "malformed" }
  | { kind: "api_key"; token: string }
  /** `projectKeyOnly`: sent in `apikey`, so it is accepted only as the project's anon key. */
  | { kind: "jwt"; token: string; projectKeyOnly?: true }
  | { kind: "service"; token: string }
  /** A project publishable key (`sb_publishable_...`): the signed-out caller, when it is ours. */
  | { kind: "publishable"; token: string }
  /** A project secret key (`sb_secret_...`): never access through a bearer. */
  | { kind: "secret_key" }
  /** A credential in `apikey` that is not a project key (an API key, the service secret). */
  | { kind: "misplaced" };

const PUBLISHABLE_PREFIX = "sb_publishable_";
const SECRET_PREFIX = "sb_secret_";

/**
 * The credential a request carries, as an Authorization value: its Authorization header, else its
 * `apikey` header under the `ApiKey` scheme. A signed-out supabase-js client sends the project's
 * key there; only a project key belongs there, so that scheme carries nothing else (see
 * `classifyBearer`).
 */
export function bearerHeader(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization !== null && authorization.trim() !== "") return authorization;
  const apikey = headers.get("apikey")?.trim();
  return apikey ? `ApiKey ${apikey}` : null;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Classifies a bearer as the spec says: the service secret (compared in constant time) when one
 * is configured, then the platform's own key shapes (`sb_publishable_`, `sb_secret_`), else exactly
 * 36 characters is an API key, else a JWT-shaped token is a JWT. Under the `ApiKey` scheme (the
 * `apikey` header) only a publishable key or a JWT to be accepted as the anon key counts.
 */
export function classifyBearer(header: string | null, serviceSecret?: string): Bearer {
  if (header === null || header.trim() === "") return { kind: "none" };
  const match = /^(Bearer|ApiKey) +(\S+)\s*$/i.exec(header);
  const token = match?.[2];
  if (!token) return { kind: "malformed" };
  if (match[1]!.toLowerCase() === "apikey") {
    if (token.startsWith(PUBLISHABLE_PREFIX)) return { kind: "publishable", token };
    if (JWT_SHAPE.test(token)) return { kind: "jwt", token, projectKeyOnly: true };
    return { kind: "misplaced" };
  }
  if (serviceSecret && constantTimeEqual(token, serviceSecret)) return { kind: "service", token };
  if (token.startsWith(PUBLISHABLE_PREFIX)) return { kind: "publishable", token };
  if (token.startsWith(SECRET_PREFIX)) return { kind: "secret_key" };
  if (token.length === 36) return { kind: "api_key", token };
  if (JWT_SHAPE.test(token)) return { kind: "jwt", token };
  return { kind: "malformed" };
}

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Whether `token` is one of the given keys, compared in constant time against each. */
export function isOneOf(token: string, keys: readonly string[]): boolean {
  let found = false;
  for (const key of keys) found = constantTimeEqual(token, key) || found;
  return found;
}
