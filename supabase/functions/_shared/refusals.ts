import { Fail } from "./envelope.ts";

/**
 * Every refusal of a credential, a method, a body's size or a budget (an HTTP status other than
 * 200), written once; an Idempotency-Key's refusals are `idempotency.ts`'s own. The first
 * group is the interface's catalogue, copied exactly (the SQL request openers raise the API-key and
 * grant messages with SQLSTATE PT401/PT403, which `db_errors.ts` turns into these statuses); the
 * rest are this service's own wording for what the interface leaves unsaid.
 */
export const refusals = {
  // The interface's catalogue (Errors, "Catalogued responses"); its 401 and 403 are in
  // `raisedInSql` below.
  /** 429: the bucket's budget is spent; carries the window's headers, `Retry-After` included. */
  rateLimited: (windowHeaders: Record<string, string>) =>
    new Fail(
      `Rate limit exceeded. Try again in ${windowHeaders["Retry-After"] ?? "60"}s.`,
      429,
      {},
      windowHeaders,
    ),
  /** 429: the caller's whole results still being sent hold their share of the pool. */
  tooManyStreams: () =>
    new Fail(
      "Too many whole results of yours are still being sent: read them first, or ask by id",
      429,
      {},
      { "Retry-After": "2" },
    ),
  /** 413: the body is over the endpoint's cap. */
  bodyTooLarge: (maxBytes: number) =>
    new Fail(`Request body too large: the limit is ${maxBytes} bytes`, 413),

  // Requests the interface rules out without naming a message.
  /** 405: every endpoint takes POST. */
  methodNotAllowed: () =>
    new Fail("Method not allowed: every endpoint takes POST with a JSON body", 405, {}, {
      Allow: "POST, OPTIONS",
    }),
  /** 401: a bearer that is neither an API key nor a JWT (section 8 of the endpoint notes). */
  malformedBearer: () => new Fail(MALFORMED_TOKEN, 401),
  /** 401: anything but the service secret on a service-only endpoint. */
  serviceSecretOnly: () => new Fail("Invalid auth token", 401),
  /** 401: an API key on an endpoint for signed-in users only. */
  apiKeyNotAccepted: () =>
    new Fail("API keys cannot call this endpoint: sign in and send your access token", 401),

  // Access tokens (JWTs).
  badSignature: () => new Fail("Invalid token: the signature or format is not valid", 401),
  expired: () => new Fail("Invalid token: the token has expired", 401),
  unsupportedAlgorithm: (alg: string) =>
    new Fail(`Invalid token: unsupported signing algorithm ${alg}`, 401),
  noUser: () => new Fail("Invalid token: the token carries no user", 401),
  wrongAudience: () => new Fail('Invalid token: the audience (aud) must be "authenticated"', 401),
  wrongIssuer: () =>
    new Fail("Invalid token: it was not issued by this project's Auth service (iss)", 401),
  tooLongLived: (maxSeconds: number) =>
    new Fail(
      `Invalid token: a session token may live at most ${maxSeconds} seconds (exp - iat)`,
      401,
    ),
  issuedInFuture: () =>
    new Fail("Invalid token: it was issued in the future (iat); check the signer's clock", 401),
  serviceRoleToken: () =>
    new Fail(
      "Invalid token: the service role key is not accepted; sign in or send an API key",
      401,
    ),
  /** 401: an API key refused without the database (its shape says it was not issued here). */
  invalidApiKey: () => new Fail(raisedInSql.invalidApiKey, 401),
  secretKeyBearer: () =>
    new Fail(
      "Invalid token: a project secret key is not accepted; sign in or send an API key",
      401,
    ),
  /** 401: `apikey` holds a credential that only Authorization may carry. */
  onlyProjectKeyInApiKey: () =>
    new Fail(
      "Invalid token: the apikey header carries only the project's key; send a token or API " +
        "key as Authorization: Bearer <token>",
      401,
    ),
  unknownPublishableKey: () =>
    new Fail("Invalid token: this publishable key is not one of this project's keys", 401),
  anonKeyWithUser: () => new Fail("Invalid token: an anon key must not name a user (sub)", 401),
  /**
   * 401: a signed-out caller (the project's anon or publishable key, or no credential at all)
   * asked for something only a user may do.
   */
  signInRequired: () => new Fail("Signed out: sign in (or send an API key) to do this", 401),
} as const;

/**
 * The interface's catalogued 401 and 403 messages, which the SQL request openers raise themselves
 * (`private.begin_api_key_request`, SQLSTATE PT401/PT403) while resolving a key in the statement
 * that opens the transaction; listed here so the catalogue is whole (a test checks the SQL).
 */
export const raisedInSql = {
  /** 401: the key matches no registered client. */
  invalidApiKey: "Invalid API Key",
  /** 401: the key's client was deleted (a stale key). */
  apiKeyWithoutClient: "Invalid API Key, no client found",
  /** 403: a character endpoint called with a key that holds no grant on that character. */
  noCharacterGrant: "You do not have access to this character",
} as const;

/** Message for a bearer that is neither an API key nor a JWT (section 8 of the endpoint notes). */
const MALFORMED_TOKEN =
  "Invalid token format. Expected a 36-character API key (UUID) or a JWT. See the API documentation.";
