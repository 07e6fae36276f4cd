import type { z } from "zod";
import { noteRefused, noteResolved } from "./auth/api_key_standing.ts";
import { bearerHeader } from "./auth/classify_bearer.ts";
import { type Credential, resolveCredential, type UsableCredential } from "./auth/credential.ts";
import { actsForUser, type Identity } from "./auth/identity.ts";
import type { EndpointName } from "@shared/contract.ts";
import {
  type AuthKind,
  DEFAULT_MAX_BODY_BYTES,
  type EndpointContract,
} from "@shared/contract/entry.ts";
import type postgres from "postgres";
import {
  asCaller,
  type CallerTransactionOptions,
  ONE_ROUND_TRIP_READ,
  type ReadStatement,
  readStatement,
} from "./db/as_caller.ts";
import type { Tx } from "./db/pool.ts";
import type { SendAhead } from "./db/transaction.ts";
import { AfterCommit } from "./after_commit.ts";
import { RowStream } from "./row_stream.ts";
import { takeStreamPlace } from "./stream_places.ts";
import { isPermissionRefusal, mapDatabaseError } from "./db_errors.ts";
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
import { rateLimitHeaders } from "./rate_limit/buckets.ts";
import { countRequest, Verdict } from "./rate_limit/verdict.ts";
import { assertWithinBudget } from "./rate_limit/database_window.ts";
import { hasSmallBody, parseJsonBody, readBodyCapped } from "./read_body.ts";
import { refusals } from "./refusals.ts";
import { sha256Hex } from "./sha256.ts";
import { validationFail } from "./validation.ts";
import {
  claimKey,
  idempotencyKeyOf,
  type IdempotentRequest,
  rememberAnswer,
  Replay,
} from "./idempotency.ts";
import { REPLAY_HEADER } from "@shared/idempotency.ts";
import { corsHeaders } from "./cors.ts";
import { clientAddress } from "./client_address.ts";

export type { AuthKind };

/** What a handler receives. */
export interface HandlerContext<B> {
  body: B;
  /**
   * The kind of caller only: which user a request acts for is known to the database
   * (`auth.uid()`), which resolves API keys itself; handlers ask it rather than carry a copy.
   */
  caller: Pick<Identity, "kind">;
  requestId: string;
  /** The client's address as the rate limiter saw it. */
  clientIp: string;
}

/** What a handler with database access receives: its transaction runs as the caller. */
export interface DbHandlerContext<B> extends HandlerContext<B> {
  tx: Tx;
}

/** What a function with database access declares besides its contract entry. */
export interface DbServerSide<S extends z.ZodType, R extends z.ZodType> {
  /**
   * For character endpoints: the character an API-key call targets. A single id needs a grant for
   * the key's client and runs as the character's owner; otherwise row-level policies admit only
   * granted characters.
   */
  characterGrant?: (body: z.output<S>) => number | undefined;
  /**
   * The handler: it sends all its statements before it awaits an answer, and its transaction
   * commits right behind them (a decision that needs an answer first belongs in SQL). It may return
   * `afterCommit(step)` to finish after its transaction commits. An entry whose effect is `read`
   * runs in a read-only transaction (Postgres refuses any write in it). An endpoint declares this
   * or `stream`, `read`, or `read` with one of them (`read` for the bodies its `when` names).
   */
  run?: (ctx: DbHandlerContext<z.output<S>>) => Promise<z.input<R> | AfterCommit<z.input<R>>>;
  /**
   * A find whose answer may be too long to hold: it returns its rows, or a `RowStream` that sends
   * them while its read-only transaction stays open, and commits once the answer is whole.
   */
  stream?: (ctx: DbHandlerContext<z.output<S>>) => Promise<z.input<R> | RowStream>;
  /**
   * For a handler that is one read statement: that statement and how its rows become the result,
   * sent with its transaction's opener and COMMIT in one round trip.
   */
  read?: OneRead<S, R>;
  /**
   * `run` acts outside the database (a file written to Storage), which no rollback undoes: it
   * starts only once the caller is known to be within budget, never while the budget is checked,
   * and its transaction waits for it to finish.
   */
  actsOutsideDatabase?: boolean;
}

/** A handler that is one read statement (see `DbServerSide.read`). */
export interface OneRead<S extends z.ZodType, R extends z.ZodType> {
  /** The bodies this read serves; all of them when absent. */
  when?: (body: z.output<S>) => boolean;
  statement: (body: z.output<S>) => ReadStatement;
  result: (rows: postgres.Row[], body: z.output<S>) => z.input<R>;
}

/** What a function that touches no database declares besides its contract entry. */
export interface PlainServerSide<S extends z.ZodType, R extends z.ZodType> {
  run: (ctx: HandlerContext<z.output<S>>) => Promise<z.input<R>>;
}

/**
 * The server side of a contract entry: a plain handler when the entry says `database: false`, and
 * a character grant target when it says `perCharacter`.
 */
export type ServerSide<E extends EndpointContract> = [E] extends [{ database: false }]
  ? PlainServerSide<E["body"], E["result"]>
  : [E] extends [{ perCharacter: true }] ?
      & DbServerSide<E["body"], E["result"]>
      & Required<Pick<DbServerSide<E["body"], E["result"]>, "characterGrant">>
  : Omit<DbServerSide<E["body"], E["result"]>, "characterGrant">;

/** An endpoint whose handler runs in a transaction as the caller: its contract and server side. */
export type DbEndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  & EndpointContract<S, R>
  & DbServerSide<S, R>
  & { database?: undefined };

/** An endpoint that touches no database. */
export type PlainEndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  & EndpointContract<S, R>
  & PlainServerSide<S, R>
  & { database: false };

/** Any endpoint declaration. */
export type EndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  | DbEndpointSpec<S, R>
  | PlainEndpointSpec<S, R>;

/** A request handler as `Deno.serve` takes it, with its endpoint's name and database use. */
export type EndpointHandler =
  & ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>)
  & { endpoint: EndpointName; usesDatabase: boolean };

/**
 * Builds the request handler of the contract entry `name` of `area` (a function imports its own
 * area's table, `shared/contract/<area>.ts`, and so builds no other schemas) with its server side:
 * the whole pipeline, in order. The credential is resolved once (shape, signature and claims, acceptance,
 * rate buckets); every refusal and database error becomes its answer in one place, `answer`.
 */
export function endpoint<
  A extends Readonly<Record<string, EndpointContract>>,
  N extends keyof A & EndpointName,
>(
  area: A,
  name: N,
  server: ServerSide<A[N]>,
): EndpointHandler {
  // ServerSide pairs a plain server side with the entries that say `database: false` only.
  const spec = { ...area[name], ...server } as EndpointSpec<z.ZodType, z.ZodType>;
  if (spec.database !== false) {
    const handlers = [spec.run, spec.stream].filter((h) => h !== undefined).length;
    if (handlers > 1) throw new Error(`${name} declares both run and stream`);
    if (handlers === 0 && spec.read === undefined) {
      throw new Error(`${name} declares no run, stream or read`);
    }
    if (handlers === 0 && spec.read?.when) {
      throw new Error(`${name}: a read for some bodies only needs a run or stream for the others`);
    }
    if (spec.read && spec.characterGrant) {
      throw new Error(`${name}: a one-statement read cannot target a character grant`);
    }
  }
  return Object.assign(pipeline(name, spec), {
    endpoint: name,
    usesDatabase: spec.database !== false,
  });
}

function pipeline<S extends z.ZodType, R extends z.ZodType>(
  // The contract's name, never the URL's: the platform passes sub-paths on to the function.
  name: string,
  spec: EndpointSpec<S, R>,
): (req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  const handler = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    let headers: Record<string, string> = { "X-Request-Id": requestId };
    let credential: Credential | null = null;
    let verdict: Verdict | null = null;
    let response: Response;
    try {
      if (req.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: corsHeaders });
      }
      const maxBodyBytes = spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      // A small body has arrived with the headers: it is read while the credential and the budget
      // are checked; a large one only once the caller is within budget. Either is awaited below,
      // so a refusal before the body still comes first.
      const early = hasSmallBody(req) ? readBodyCapped(req, maxBodyBytes) : null;
      early?.catch(() => {});
      const clientIp = clientAddress(req, info, env.TRUST_PROXY);
      credential = await resolveCredential(
        bearerHeader(req.headers),
        spec.auth,
        serviceSecretFor(spec),
        clientIp,
      );
      verdict = new Verdict(credential.buckets, requestId, spec.rateLimitStore);
      // A small POST's database work starts while its budget is checked (a write's statement only
      // once it is known), unless the caller was refused a moment ago; anything else waits first.
      const overlaps = spec.database !== false && spec.actsOutsideDatabase !== true &&
        early !== null &&
        req.method === "POST" && credential.kind !== "refused" && !verdict.refusedRecently;
      if (!overlaps) headers = { ...headers, ...await verdict.headers() };
      // After the rate limit, so a refused method counts and carries the budget headers too.
      if (req.method !== "POST") throw refusals.methodNotAllowed();
      if (credential.kind === "refused") throw credential.refusal;
      const caller: UsableCredential = credential;

      const text = await (early ?? readBodyCapped(req, maxBodyBytes));
      const parsed = spec.body.safeParse(parseJsonBody(text), { reportInput: true });
      if (!parsed.success) {
        await confirmApiKey(caller, verdict); // an unknown key is reported before a bad body
        throw validationFail(parsed.error, spec.body);
      }
      const base = { body: parsed.data as z.output<S>, requestId, clientIp };
      let data: unknown;
      if (spec.database === false) {
        await confirmApiKey(caller, verdict);
        data = await spec.run({ ...base, caller: { kind: caller.kind } });
      } else {
        const key = idempotencyKeyOf(req, name);
        const retryable = key === null || !actsForUser(caller)
          ? null
          : { key, endpoint: name, bodyHash: sha256Hex(text) };
        data = await runInTransaction(spec, base, caller, retryable, verdict);
      }
      // Nothing is answered before the verdict: a refused budget outranks any answer.
      try {
        headers = { ...headers, ...await verdict.headers() };
      } catch (refusal) {
        if (data instanceof RowStream) await data.transaction.end(false).catch(() => {});
        throw refusal;
      }
      if (data instanceof RowStream) {
        const check = (batch: readonly unknown[]) => checkedList(spec.result, batch);
        let place: (() => void) | null = null;
        try {
          place = takeStreamPlace(credential.buckets[0]?.identifier ?? clientIp);
          response = data.response(check, headers, { fn: name, request_id: requestId }, place);
        } catch (e) {
          place?.(); // given back at most once, whoever calls first
          await data.transaction.end(false).catch(() => {});
          throw e;
        }
      } else {
        response = jsonResponse(successBody(checkedResult(spec.result, data)), 200, headers);
      }
    } catch (e) {
      // A refused budget outranks every other answer, as when it is checked first; any answer
      // carries the budget's headers. A count still waiting for the database is not sent when the
      // database was out of reach: it would wait on the same outage.
      const unreachable = verdict?.ridesAhead && mapDatabaseError(e) instanceof Unavailable;
      let refusal: unknown = null;
      try {
        if (verdict && !unreachable) headers = { ...headers, ...await verdict.headers() };
      } catch (refused) {
        refusal = refused;
      }
      response = answer(refusal ?? e, credential, headers, requestId, name);
    }
    log.info("request", {
      fn: name,
      status: response.status,
      ms: Math.round(performance.now() - started),
      bucket: credential?.buckets[0]?.kind ?? "none",
      request_id: requestId,
    });
    return response;
  };
  return handler;
}

function checkedResult(schema: z.ZodType, data: unknown): unknown {
  const checked = schema.safeParse(data);
  if (!checked.success) {
    throw new Error(`Response does not match the result schema: ${checked.error.message}`);
  }
  return checked.data;
}

/** A batch of a streamed list, checked as the result schema checks a whole list. */
function checkedList(schema: z.ZodType, batch: readonly unknown[]): unknown[] {
  const checked = checkedResult(schema, batch);
  if (!Array.isArray(checked)) throw new Error("A streamed answer's schema must take a list");
  return checked;
}

function serviceSecretFor(spec: EndpointContract): string | undefined {
  return spec.auth.includes("service") ? env.CONTENT_UPDATE_SECRET : undefined;
}

/**
 * Resolves an API key in a transaction of its own: for an endpoint without database work, and to
 * report an unknown key before a bad body. Other credentials need no lookup.
 */
async function confirmApiKey(credential: UsableCredential, verdict: Verdict): Promise<void> {
  if (credential.kind === "api_key") await transactionAs(credential, verdict, async () => {});
}

/**
 * Runs `fn` in a transaction as the request's caller: every transaction of a request starts here.
 * It is also the one place an API key's standing is learned: what the database said about the key
 * picks the buckets of later requests, and a refused key spends one request of its address's
 * budget, and is a 429 when that budget is gone.
 */
async function transactionAs<T>(
  credential: UsableCredential,
  verdict: Verdict,
  fn: (tx: Tx) => Promise<T>,
  callerOptions: CallerTransactionOptions = {},
): Promise<{ value: T; actedAs: Identity }> {
  // The count travels ahead of the transaction when the database keeps it.
  const options = {
    ...callerOptions,
    ahead: (send: SendAhead, lost: Promise<never>) => verdict.sendAhead(send, lost),
  };
  if (credential.kind !== "api_key") return await asCaller(credential, fn, options);
  try {
    const done = await asCaller(credential, fn, options);
    noteResolved(credential.keyHash);
    return done;
  } catch (e) {
    // PT401 comes only from the key lookup that opens the transaction.
    const refusal = (e as { code?: unknown })?.code === "PT401" ? mapDatabaseError(e) : null;
    if (!(refusal instanceof Fail)) throw e;
    noteRefused(credential.keyHash, refusal);
    if (credential.chargeOnRefusal === null) throw e;
    const window = await countRequest(
      { kind: "ip", identifier: credential.chargeOnRefusal },
      verdict.store,
    );
    throw window.success ? e : refusals.rateLimited(rateLimitHeaders(window));
  }
}

/**
 * Runs a database handler in one transaction as its caller. For an API key the database resolves
 * the key, and the character grant when the endpoint names one, in the statement that opens the
 * transaction (`asCaller`), so an API-key request costs one transaction and no extra round trip.
 */
async function runInTransaction<S extends z.ZodType, R extends z.ZodType>(
  spec: DbEndpointSpec<S, R>,
  base: Omit<HandlerContext<z.output<S>>, "caller">,
  credential: UsableCredential,
  retryable: IdempotentRequest | null,
  verdict: Verdict,
): Promise<unknown> {
  const read = spec.read;
  if (read && (read.when?.(base.body) ?? true)) {
    const statement = read.statement(base.body);
    const { value: rows } = await transactionAs(
      credential,
      verdict,
      (tx) => readStatement(tx, statement),
      ONE_ROUND_TRIP_READ,
    );
    return read.result(rows, base.body);
  }
  const run = spec.run ?? spec.stream;
  if (!run) throw new Error("An endpoint without `run` or `stream` must read every body it takes");
  const caller = { kind: credential.kind };
  type Outcome = z.input<R> | AfterCommit<z.input<R>> | RowStream;
  const work = (tx: Tx): Promise<Outcome> => run({ ...base, caller, tx });
  // With an Idempotency-Key, the key is claimed and the answer kept in the same transaction.
  let answered: unknown = null;
  const handle = retryable === null ? work : async (tx: Tx): Promise<Outcome> => {
    // The work is sent right behind the claim, without waiting for it: both go in one round trip,
    // and when the claim finds an earlier request the work is rolled back with the transaction.
    const claimed = claimKey(tx, retryable);
    const working = work(tx);
    working.catch(() => {}); // the claim's refusal, when there is one, is the answer
    try {
      await claimed;
    } catch (refusal) {
      // The work goes on sending statements until it finishes: they must all land in this
      // transaction, which the refusal then rolls back, not after it.
      await working.catch(() => {});
      throw refusal;
    }
    const outcome = await working;
    if (outcome instanceof AfterCommit || outcome instanceof RowStream) return outcome;
    const checked = checkedResult(spec.result, outcome) as z.input<R>;
    answered = successBody(checked); // kept with the COMMIT (`withCommit`)
    return checked;
  };
  const characterId = spec.characterGrant?.(base.body) ?? null;
  const readOnly = spec.effect === "read";
  // A stream's transaction stays open; a keyed request's answer is kept right before its COMMIT
  // (`withCommit`).
  const commitAhead = spec.stream === undefined && retryable === null &&
    spec.actsOutsideDatabase !== true;
  // A refused write must not run. When its count travels ahead of its BEGIN, its first statement
  // refuses it if the count did; otherwise (Upstash) it starts once the verdict is known. A read
  // is answered once the verdict is.
  const guarded = !readOnly && verdict.ridesAhead;
  if (!readOnly && !guarded) await verdict.headers();
  const withinBudget = !guarded ? handle : (tx: Tx): Promise<Outcome> => {
    assertWithinBudget(tx, base.requestId);
    return handle(tx);
  };
  const { value: outcome, actedAs } = await transactionAs(credential, verdict, withinBudget, {
    characterId,
    commitAhead,
    readOnly,
    withCommit: retryable === null
      ? undefined
      : (tx) => answered === null ? null : rememberAnswer(tx, retryable, 200, answered),
  });
  if (!(outcome instanceof AfterCommit)) return outcome;
  const same = async <T>(fn: (tx: Tx) => Promise<T>) => (await asCaller(actedAs, fn)).value;
  const final = await outcome.step({ transaction: same });
  if (retryable === null) return final;
  // The answer came after the commit: kept now if it can be. The caller may be gone (delete-user)
  // or the database away; the answer stands either way, and a repeat of the key is then told that
  // the first request's outcome is unknown (`claimKey`), never given the work a second time.
  const checked = checkedResult(spec.result, final);
  await same(async (tx) => await rememberAnswer(tx, retryable, 200, successBody(checked)))
    .catch(() => {});
  return checked;
}

/**
 * The one place a thrown value becomes a response: refusals as JSend fails with their status,
 * database errors mapped (`db_errors.ts`), anything else a logged 500. A permission refusal under
 * the anon key is a 401: signed out, the caller may only read what is public.
 */
function answer(
  e: unknown,
  credential: Credential | null,
  headers: Record<string, string>,
  requestId: string,
  name: string,
): Response {
  if (e instanceof Replay) {
    return jsonResponse(e.body, e.status, { ...headers, [REPLAY_HEADER]: "true" });
  }
  const mapped = credential?.kind === "anon" && isPermissionRefusal(e)
    ? refusals.signInRequired()
    : mapDatabaseError(e);
  if (mapped instanceof Fail) {
    return jsonResponse(failBody(mapped), mapped.httpStatus, { ...headers, ...mapped.headers });
  }
  if (mapped instanceof ErrorReply) return jsonResponse(errorBody(mapped.message), 200, headers);
  if (mapped instanceof Unavailable) {
    log.error("unavailable", { fn: name, request_id: requestId, reason: describe(mapped.cause) });
    return jsonResponse(errorBody(mapped.message), 503, { ...headers, "Retry-After": "5" });
  }
  log.error("unhandled", { fn: name, request_id: requestId, reason: describe(mapped) });
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
