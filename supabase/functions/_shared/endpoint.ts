import type { z } from "zod";
import { type Claims, verifyAccessToken } from "./auth/jwt.ts";
import { type Bearer, classifyBearer } from "./auth/classify_bearer.ts";
import { type Acting, type Tx, withApiKey, withRole } from "./db.ts";
import { AfterCommit } from "./after_commit.ts";
import { mapDatabaseError } from "./db_errors.ts";
import { env } from "./env.ts";
import {
  errorBody,
  ErrorReply,
  Fail,
  failBody,
  jsonResponse,
  successBody,
  Unavailable,
} from "./envelope.ts";
import { log } from "./log.ts";
import { type BucketKind, consumeRateLimit, rateLimitHeaders } from "./rate_limit.ts";
import { sha256Hex } from "./sha256.ts";
import { parseJsonBody, readBodyCapped } from "./read_body.ts";
import { validationFail } from "./validation.ts";
import { corsHeaders } from "./cors.ts";
import { clientAddress } from "./client_address.ts";

/** The credentials an endpoint accepts. `none` admits callers without any. */
export type AuthKind = "jwt" | "api_key" | "service" | "none";

/**
 * What kind of caller this is. Which user a request acts for is known to the database
 * (`auth.uid()`), which resolves API keys itself; handlers ask it rather than carry a copy.
 */
export type Caller =
  | { kind: "anonymous" }
  | { kind: "service" }
  | { kind: "user"; via: "jwt" | "api_key" };

/** What a handler receives. */
export interface HandlerContext<B> {
  body: B;
  caller: Caller;
  requestId: string;
  /** The client's address as the rate limiter saw it. */
  clientIp: string;
}

/** What a handler with database access receives: its transaction runs as the caller. */
export interface DbHandlerContext<B> extends HandlerContext<B> {
  tx: Tx;
}

interface EndpointBase<S extends z.ZodType, R extends z.ZodType> {
  /** Accepted credentials. */
  auth: readonly AuthKind[];
  /** The request body schema; its output is what the handler sees. */
  body: S;
  /** The success `data` schema; outgoing data is validated against it. */
  result: R;
  /** Body size cap in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Keep the per-IP budget in this process only (no shared store on this path). */
  ingress?: "shared" | "in_process";
  /** One-line description for the OpenAPI document. */
  summary?: string;
}

/** An endpoint whose handler runs in a transaction as the caller. */
export interface DbEndpointSpec<S extends z.ZodType, R extends z.ZodType>
  extends EndpointBase<S, R> {
  database?: true;
  /**
   * For character endpoints: the character an API-key call targets. A single id needs a grant for
   * the key's client and runs as the character's owner; otherwise row-level policies admit only
   * granted characters.
   */
  characterGrant?: (body: z.output<S>) => number | undefined;
  /** The handler; it may return `afterCommit(step)` to finish after its transaction commits. */
  run: (ctx: DbHandlerContext<z.output<S>>) => Promise<z.input<R> | AfterCommit<z.input<R>>>;
}

/** An endpoint that touches no database. */
export interface PlainEndpointSpec<S extends z.ZodType, R extends z.ZodType>
  extends EndpointBase<S, R> {
  database: false;
  run: (ctx: HandlerContext<z.output<S>>) => Promise<z.input<R>>;
}

/** Any endpoint declaration. */
export type EndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  | DbEndpointSpec<S, R>
  | PlainEndpointSpec<S, R>;

/** A request handler as `Deno.serve` takes it, carrying its declaration for the OpenAPI build. */
export type EndpointHandler =
  & ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>)
  & { spec: EndpointSpec<z.ZodType, z.ZodType> };

const DEFAULT_MAX_BODY = 1024 * 1024;

/** Message for a bearer that is neither an API key nor a JWT (section 8 of the endpoint notes). */
export const MALFORMED_TOKEN =
  "Invalid token format. Expected a 36-character API key (UUID) or a JWT. See the API documentation.";

/** Builds the request handler for an endpoint declaration: the whole pipeline, in order. */
export function endpoint<S extends z.ZodType, R extends z.ZodType>(
  spec: EndpointSpec<S, R>,
): EndpointHandler {
  const handler = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    const name = new URL(req.url).pathname.split("/").filter(Boolean).at(-1) ?? "unknown";
    let headers: Record<string, string> = { "X-Request-Id": requestId };
    let bucket: BucketKind | "none" = "none";
    let response: Response;
    try {
      if (req.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: corsHeaders });
      }
      const clientIp = clientAddress(req, info, env.TRUST_PROXY);
      const bearer = spec.auth.length === 1 && spec.auth[0] === "none"
        ? { kind: "none" } as const
        : classifyBearer(req.headers.get("authorization"), serviceSecretFor(spec));
      const verified = bearer.kind === "jwt"
        ? await verifyAccessToken(bearer.token).catch(asFail)
        : null;
      const limitKey = rateBucket(bearer, verified, clientIp);
      bucket = limitKey.kind;
      const window = await consumeRateLimit(limitKey.kind, limitKey.identifier, spec.ingress);
      headers = { ...headers, ...rateLimitHeaders(window) };
      if (!window.success) {
        const retry = headers["Retry-After"] ?? "60";
        throw new Fail(`Rate limit exceeded. Try again in ${retry}s.`, 429);
      }
      // After the rate limit, so a refused method counts and carries the budget headers too.
      if (req.method !== "POST") {
        throw new Fail("Method not allowed: every endpoint takes POST with a JSON body", 405, {}, {
          Allow: "POST, OPTIONS",
        });
      }
      refuseUnacceptedBearer(spec.auth, bearer, verified);

      const text = await readBodyCapped(req, spec.maxBodyBytes ?? DEFAULT_MAX_BODY);
      const raw = parseJsonBody(text);
      const parsed = spec.body.safeParse(raw, { reportInput: true });
      if (!parsed.success) {
        await identify(bearer, verified); // an unknown credential is reported before a bad body
        throw validationFail(parsed.error);
      }
      const body: z.output<S> = parsed.data;

      const base = { body, requestId, clientIp };
      const data = spec.database === false
        ? await spec.run({ ...base, caller: await identify(bearer, verified) })
        : await runInTransaction(spec, base, bearer, verified);
      const checked = spec.result.safeParse(data);
      if (!checked.success) {
        throw new Error(`Response does not match the result schema: ${checked.error.message}`);
      }
      response = jsonResponse(successBody(checked.data), 200, headers);
    } catch (e) {
      response = errorResponse(e, headers, requestId, name);
    }
    log.info("request", {
      fn: name,
      status: response.status,
      ms: Math.round(performance.now() - started),
      bucket,
      request_id: requestId,
    });
    return response;
  };
  return Object.assign(handler, { spec: spec as EndpointSpec<z.ZodType, z.ZodType> });
}

function asFail(e: unknown): Fail {
  if (e instanceof Fail) return e;
  return new Fail("Invalid token: the signature or format is not valid", 401);
}

function serviceSecretFor(spec: EndpointBase<z.ZodType, z.ZodType>): string | undefined {
  return spec.auth.includes("service") ? env.CONTENT_UPDATE_SECRET : undefined;
}

/** The bucket a request counts against: the token itself when it is usable, else the client IP. */
function rateBucket(
  bearer: Bearer,
  verified: Claims | Fail | null,
  clientIp: string,
): { kind: BucketKind; identifier: string } {
  switch (bearer.kind) {
    case "service":
      return { kind: "service", identifier: bearer.token };
    case "api_key":
      return { kind: "api_key", identifier: bearer.token };
    case "jwt":
      // A token that fails verification is unrecognised auth: it must not buy a fresh budget.
      return verified instanceof Fail
        ? { kind: "ip", identifier: clientIp }
        : { kind: "jwt", identifier: bearer.token };
    default:
      return { kind: "ip", identifier: clientIp };
  }
}

function refuseUnacceptedBearer(
  accepted: readonly AuthKind[],
  bearer: Bearer,
  verified: Claims | Fail | null,
): void {
  switch (bearer.kind) {
    case "none":
      if (!accepted.includes("none")) {
        throw new Fail("Missing bearer token: send Authorization: Bearer <API key or JWT>", 401);
      }
      return;
    case "malformed":
      throw new Fail(
        accepted.includes("service") && accepted.length === 1
          ? "Invalid auth token"
          : MALFORMED_TOKEN,
        401,
      );
    case "service":
      return;
    case "api_key":
      if (!accepted.includes("api_key")) throw notAccepted(accepted);
      return;
    case "jwt":
      if (!accepted.includes("jwt")) throw notAccepted(accepted);
      if (verified instanceof Fail) throw verified;
      return;
  }
}

function notAccepted(accepted: readonly AuthKind[]): Fail {
  if (accepted.includes("service") && accepted.length === 1) {
    return new Fail("Invalid auth token", 401);
  }
  return new Fail("API keys cannot call this endpoint: sign in and send your access token", 401);
}

/**
 * Checks the caller's credential outside any request transaction, for a plain endpoint and to
 * report an unknown API key before a bad body. Keys are looked up by hash only after the rate limit.
 */
async function identify(bearer: Bearer, verified: Claims | Fail | null): Promise<Caller> {
  const caller = callerOf(bearer);
  if (bearer.kind === "api_key") {
    await withApiKey(sha256Hex(bearer.token), null, async () => {}).catch((e) => {
      throw mapDatabaseError(e);
    });
  } else if (bearer.kind === "jwt" && (verified === null || verified instanceof Fail)) {
    throw verified ?? new Fail("Invalid token", 401);
  }
  return caller;
}

function callerOf(bearer: Bearer): Caller {
  switch (bearer.kind) {
    case "service":
      return { kind: "service" };
    case "api_key":
    case "jwt":
      return { kind: "user", via: bearer.kind };
    default:
      return { kind: "anonymous" };
  }
}

/**
 * Runs a database handler in one transaction as its caller. For an API key the database resolves
 * the key, and the character grant when the endpoint names one, in the statement that opens the
 * transaction (`withApiKey`), so an API-key request costs one transaction and no extra round trip.
 */
async function runInTransaction<S extends z.ZodType, R extends z.ZodType>(
  spec: DbEndpointSpec<S, R>,
  base: Omit<HandlerContext<z.output<S>>, "caller">,
  bearer: Bearer,
  verified: Claims | Fail | null,
): Promise<unknown> {
  const caller = callerOf(bearer);
  type Outcome = z.input<R> | AfterCommit<z.input<R>>;
  const handle = (tx: Tx): Promise<Outcome> => spec.run({ ...base, caller, tx });
  let transaction: Promise<{ value: Outcome; acting: Acting }>;
  if (bearer.kind === "api_key") {
    const characterId = spec.characterGrant?.(base.body) ?? null;
    transaction = withApiKey(sha256Hex(bearer.token), characterId, handle);
  } else {
    // A JWT that failed verification was refused before the body was read.
    const acting = actingFor(bearer, verified);
    transaction = withRole(acting, handle).then((value) => ({ value, acting }));
  }
  const { value: outcome, acting } = await transaction.catch((e) => {
    throw mapDatabaseError(e);
  });
  if (!(outcome instanceof AfterCommit)) return outcome;
  return await outcome.step({
    transaction: (fn) =>
      withRole(acting, fn).catch((e) => {
        throw mapDatabaseError(e);
      }),
  });
}

/** The role and claims for a caller whose identity needs no lookup. */
function actingFor(bearer: Bearer, verified: Claims | Fail | null): Acting {
  if (bearer.kind === "service") return { role: "service_role" };
  if (bearer.kind === "jwt" && verified !== null && !(verified instanceof Fail)) {
    return { role: "authenticated", claims: verified };
  }
  return { role: "anon" };
}

function errorResponse(
  e: unknown,
  headers: Record<string, string>,
  requestId: string,
  name: string,
): Response {
  if (e instanceof Fail) {
    return jsonResponse(failBody(e), e.httpStatus, { ...headers, ...e.headers });
  }
  if (e instanceof ErrorReply) return jsonResponse(errorBody(e.message), 200, headers);
  if (e instanceof Unavailable) {
    log.error("unavailable", { fn: name, request_id: requestId, reason: describe(e.cause) });
    return jsonResponse(errorBody(e.message), 503, { ...headers, "Retry-After": "5" });
  }
  log.error("unhandled", { fn: name, request_id: requestId, reason: describe(e) });
  return jsonResponse(
    errorBody(`Internal server error; quote request id ${requestId} when reporting it`),
    500,
    headers,
  );
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`.slice(0, 500);
  return String(e).slice(0, 500);
}
