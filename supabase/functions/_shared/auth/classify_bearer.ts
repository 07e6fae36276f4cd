/** What an Authorization header carries, decided from its shape alone. */
export type Bearer =
  | { kind: "none" }
  | { kind: "malformed" }
  | { kind: "api_key"; token: string }
  | { kind: "jwt"; token: string }
  | { kind: "service"; token: string };

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Classifies a bearer as the spec says: the service secret (compared in constant time) when one
 * is configured, else exactly 36 characters is an API key, else a JWT-shaped token is a JWT.
 */
export function classifyBearer(header: string | null, serviceSecret?: string): Bearer {
  if (header === null || header.trim() === "") return { kind: "none" };
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token) return { kind: "malformed" };
  if (serviceSecret && constantTimeEqual(token, serviceSecret)) return { kind: "service", token };
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
