/** What an Authorization header carries, decided from its shape alone. */
export type Bearer =
  | { kind: "none" }
  | { kind: "malformed" }
  | { kind: "api_key"; token: string }
  | { kind: "jwt"; token: string }
  | { kind: "service"; token: string }
  /** A project publishable key (`sb_publishable_...`): the signed-out caller, when it is ours. */
  | { kind: "publishable"; token: string }
  /** A project secret key (`sb_secret_...`): never access through a bearer. */
  | { kind: "secret_key" };

const PUBLISHABLE_PREFIX = "sb_publishable_";
const SECRET_PREFIX = "sb_secret_";

/**
 * The bearer a request carries: its Authorization header, else its `apikey` header as a bearer
 * (a signed-out supabase-js client may send the project's key there only).
 */
export function bearerHeader(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization !== null && authorization.trim() !== "") return authorization;
  const apikey = headers.get("apikey")?.trim();
  return apikey ? `Bearer ${apikey}` : null;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Classifies a bearer as the spec says: the service secret (compared in constant time) when one
 * is configured, then the platform's own key shapes (`sb_publishable_`, `sb_secret_`), else exactly
 * 36 characters is an API key, else a JWT-shaped token is a JWT.
 */
export function classifyBearer(header: string | null, serviceSecret?: string): Bearer {
  if (header === null || header.trim() === "") return { kind: "none" };
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token) return { kind: "malformed" };
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
