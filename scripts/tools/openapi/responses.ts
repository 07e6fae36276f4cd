/**
 * One operation of the document and the statuses it answers, from its contract entry (the
 * pipeline in `supabase/functions/_shared/endpoint.ts` decides them the same way for every entry):
 *
 * - 200: JSend `success`, or `fail` for a refusal the caller can act on (and `error` when an
 *   upstream service failed, for the entries that call one);
 * - 400: a body that is not JSON, not UTF-8, not sent whole or in time, or a bad Idempotency-Key;
 * - 401: credentials refused, for every entry that takes credentials;
 * - 403: an account that is deactivated, for every entry that takes a user's token or API key;
 *   for character entries also an API key without a grant for the character, or a change it may
 *   not make;
 * - 409 and 422: a repeated Idempotency-Key, for the entries that honour one;
 * - 413: a body over the entry's cap; 429: a rate budget spent;
 * - 500: an unexpected error; 503: the database (or the sign-in keys) out of reach, for every entry
 *   that uses one.
 */
import { type AuthKind, DEFAULT_MAX_BODY_BYTES, type EndpointContract } from "@shared/contract.ts";
import { honoursIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from "@shared/idempotency.ts";
import type { Json, JsonObject } from "@shared/json_schema.ts";
import { ref } from "./json.ts";

/** Each credential kind, in the order an operation lists them: its security scheme, its name. */
const AUTH: Record<AuthKind, [scheme: string | null, name: string]> = {
  api_key: ["apiKey", "an API key"],
  jwt: ["accessToken", "a user access token (JWT)"],
  service: ["serviceSecret", "the moderation service secret"],
  none: [null, "no credentials"],
};

/** What an operation is built from besides its contract entry. */
export interface OperationParts {
  /** The request body schema. */
  body: Json;
  /** A reference to the operation's success envelope. */
  success: JsonObject;
  fail: Json;
  error: Json;
}

/** The statuses an entry can answer, in order, each a response or a reference to one. */
function responsesFor(name: string, spec: EndpointContract, parts: OperationParts): JsonObject {
  const keyed = honoursIdempotencyKey(name);
  const response = (id: string) => ({ $ref: `#/components/responses/${id}` });
  const members = [parts.success, ref("JSendFail"), ...(spec.upstream ? [ref("JSendError")] : [])];
  const statuses: [string, JsonObject | false][] = [
    ["200", {
      description: "JSend `success` with the result, or JSend `fail` when the request was " +
        "refused for a reason the caller can act on (invalid body, ownership, tier caps)" +
        (spec.upstream ? ", or JSend `error` when the upstream service failed" : ""),
      // A repeated Idempotency-Key gets the first answer again, marked.
      headers: rateLimitHeaderRefs(keyed ? ["Idempotent-Replayed"] : []),
      content: { "application/json": { schema: { oneOf: members } } },
    }],
    ["400", response("BadRequest")],
    ["401", spec.auth.some((kind) => kind !== "none") && response("Unauthorized")],
    [
      "403",
      (spec.auth.includes("jwt") || spec.auth.includes("api_key")) &&
      response(spec.perCharacter ? "CharacterForbidden" : "Forbidden"),
    ],
    ["409", keyed && response("IdempotencyConflict")],
    ["413", {
      description: `The body is larger than ${spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`,
      headers: rateLimitHeaderRefs(),
      content: { "application/json": { schema: parts.fail } },
    }],
    ["422", keyed && response("IdempotencyKeyReused")],
    ["429", response("TooManyRequests")],
    ["500", response("InternalError")],
    // A user's token is checked against the sign-in service's keys, which may be out of reach too.
    ["503", (spec.database !== false || spec.auth.includes("jwt")) && response("Unavailable")],
  ];
  return Object.fromEntries(statuses.filter(([, response]) => response !== false));
}

/** One operation: its id, tag, summary, description, security, parameters, body and responses. */
export function operationFor(
  name: string,
  spec: EndpointContract,
  parts: OperationParts,
): JsonObject {
  const maxBody = spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const accepted = (Object.keys(AUTH) as AuthKind[]).filter((kind) => spec.auth.includes(kind));
  const names = accepted.map((kind) => AUTH[kind][1]);
  const joined = names.length > 1
    ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`
    : names[0];
  const rules = spec.rules ?? [];
  const signedOut = accepted.includes("jwt")
    ? " A call without credentials is signed out, as with the project's anon key: it reads " +
      "only what is public, and what needs a user is refused with 401."
    : "";
  const description = [
    `Accepts ${joined ?? "no credentials"}.${signedOut} The body is at most ${maxBody} bytes.`,
    ...(rules.length > 0 ? [rules.map((rule) => `- ${rule}`).join("\n")] : []),
  ].join("\n\n");
  return {
    // `create-api-client` becomes `createApiClient`, the typed client's method name too.
    operationId: name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
    tags: [spec.area],
    summary: spec.summary,
    description,
    security: accepted.map((kind) => {
      const scheme = AUTH[kind][0];
      return scheme === null ? {} : { [scheme]: [] };
    }),
    ...(honoursIdempotencyKey(name)
      ? {
        parameters: [{
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "Makes the write safe to retry: a repeat with the same key and body " +
            "within 24 hours gets the first answer again (marked `Idempotent-Replayed: true`) " +
            "without the work being done twice. Scoped to the caller (the user, or an API " +
            "key's client).",
          schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
        }],
      }
      : {}),
    requestBody: { required: true, content: { "application/json": { schema: parts.body } } },
    responses: responsesFor(name, spec, parts),
    "x-max-body-bytes": maxBody,
  };
}

export function securitySchemes(): JsonObject {
  return {
    accessToken: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "A Supabase Auth access token of a signed-in user (any bearer that is not " +
        "36 characters long). The project's anon or publishable key, or no Authorization at " +
        "all, is the signed-out caller: public reads only",
    },
    apiKey: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "UUID",
      description: "A 36-character API key from create-api-client; the request runs as the " +
        "key's creator under the same row-level policies as a signed-in user",
    },
    serviceSecret: {
      type: "http",
      scheme: "bearer",
      description: "The shared secret of the moderation bot (CONTENT_UPDATE_SECRET)",
    },
  };
}

export function headerComponents(): JsonObject {
  const integer = (description: string): JsonObject => ({
    description,
    schema: { type: "integer", minimum: 0 },
  });
  return {
    "Idempotent-Replayed": {
      description: "`true` on the stored answer given again for a repeated Idempotency-Key",
      schema: { type: "string", const: "true" },
    },
    "Retry-After": integer("Seconds to wait before the request may be sent again"),
    "X-RateLimit-Limit": integer("Requests allowed per 60-second window for this bucket"),
    "X-RateLimit-Remaining": integer("Requests left in the current window"),
    "X-RateLimit-Reset": integer("Seconds until the window resets"),
    "X-Request-Id": {
      description: "Identifies the request in the server log; quote it when reporting a problem",
      schema: { type: "string", format: "uuid" },
    },
  };
}

function rateLimitHeaderRefs(extra: string[] = []): JsonObject {
  const names = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", ...extra];
  return Object.fromEntries(
    [...names, "X-Request-Id"].map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
}

export function responseComponents(fail: Json, errorSchema: Json): JsonObject {
  const withBody = (description: string, schema: Json, extra: string[] = []): JsonObject => ({
    description,
    headers: rateLimitHeaderRefs(extra),
    content: { "application/json": { schema } },
  });
  return {
    BadRequest: withBody(
      "The body is not valid JSON or not UTF-8, did not arrive whole or within 10 s, or the " +
        "Idempotency-Key header is malformed (or sent to create-api-client, which refuses it)",
      fail,
    ),
    CharacterForbidden: withBody(
      "The account is deactivated, or an API key has no grant for this character " +
        "(`You do not have access to this character`) or makes a change only the owner may make",
      fail,
    ),
    Forbidden: withBody("The caller's account is deactivated", fail),
    IdempotencyConflict: withBody(
      "A request with this Idempotency-Key is still being answered (retry after `Retry-After` " +
        "seconds), or did its work but its answer was lost (check before sending it again)",
      fail,
      ["Retry-After"],
    ),
    IdempotencyKeyReused: withBody(
      "This Idempotency-Key was already used with another body or endpoint",
      fail,
    ),
    InternalError: withBody(
      "Unexpected server error; the message carries the request id and never internals",
      errorSchema,
    ),
    TooManyRequests: withBody(
      "Rate budget exceeded (120/min per API key, 240 per access token, 600 for the service " +
        "secret, 30 per IP without usable credentials), or too many whole results of the " +
        "caller's are still being sent; wait `Retry-After` seconds",
      fail,
      ["Retry-After"],
    ),
    Unauthorized: withBody(
      "Missing, malformed, unknown or expired credentials, credentials this endpoint does not " +
        "accept (`Invalid API Key`, `Invalid API Key, no client found`, ...), a token whose " +
        "account no longer exists, or the anon key where only a signed-in user may act",
      fail,
    ),
    Unavailable: withBody(
      "The database (or the sign-in service's keys, or the file store) is out of reach; " +
        "nothing was changed. Retry after `Retry-After` seconds",
      errorSchema,
      ["Retry-After"],
    ),
  };
}
