/**
 * A typed client of this API on `@supabase/supabase-js` (`functions.invoke`): one method per
 * endpoint of the contract table (`shared/contract.ts`), named after its function in camelCase
 * (`find-spell` is `findSpell`), with the request and response types inferred from its zod schemas.
 *
 * @example
 * ```ts
 * const api = createRpgClient({ url: "http://127.0.0.1:54321", token: apiKey, retry: true });
 * const found = await api.findSpell({ name: "Fireball" });
 * if (found.status === "success") console.log(found.data);
 * else console.error(found.status === "fail" ? found.data.message : found.message);
 * ```
 */
import { createClient, FunctionsHttpError, type SupabaseClient } from "@supabase/supabase-js";
import type { z } from "zod";
import { contract, type EndpointName } from "./contract.ts";
import { type JSend, JSendError, JSendFail } from "./jsend.ts";

export { contract, type EndpointName } from "./contract.ts";

/** What an endpoint accepts (the body schema's input type). */
export type BodyOf<N extends EndpointName> = z.input<(typeof contract)[N]["body"]>;

/** What an endpoint's success `data` holds (the result schema's output type). */
export type ResultOf<N extends EndpointName> = z.output<(typeof contract)[N]["result"]>;

/** A whole answer: the JSend envelope with the HTTP status and headers it came with. */
export interface Reply<T> {
  httpStatus: number;
  headers: Headers;
  body: JSend<T>;
}

/** When and how long to wait after HTTP 429. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** A `Retry-After` longer than this many seconds is not waited for (default 60). */
  maxWaitSeconds?: number;
  /** Waits the given milliseconds (replaceable in tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** How to reach the API. */
export interface RpgClientOptions {
  /** The project's origin; functions are under `/functions/v1` (local: `http://127.0.0.1:54321`). */
  url?: string | undefined;
  /**
   * Bearer: a 36-character API key, a user's access token, or the service secret. Without one the
   * calls are signed out, as with the project's publishable key: public reads only.
   */
  token?: string | undefined;
  /** The project's publishable key, sent as `apikey` only (the functions do not need it). */
  publishableKey?: string | undefined;
  /** An existing supabase-js client instead of `url`/`token` (its session's token is sent). */
  supabase?: SupabaseClient | undefined;
  /** The fetch used by supabase-js (default: the global fetch). */
  fetch?: typeof fetch | undefined;
  /**
   * Opt in to retrying HTTP 429 after `Retry-After` seconds. Safe for every endpoint: the rate
   * limit refuses a request before anything runs. Other statuses are never retried.
   */
  retry?: boolean | RetryOptions | undefined;
}

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** A body may be left out when every field of it is optional. */
type BodyArgs<N extends EndpointName> = Record<never, never> extends BodyOf<N> ? [body?: BodyOf<N>]
  : [body: BodyOf<N>];

/** Options of one call. */
export interface CallOptions {
  /**
   * Sent as the `Idempotency-Key` header: a create, update, delete or grant repeated with the same
   * key (and body) within 24 hours is done once, and the repeat gets the first answer again. Use a
   * new random key per intended write, and the same one when retrying it.
   */
  idempotencyKey?: string;
}

/** The arguments of `call`: the body as for the endpoint's method, then the call's options. */
type CallArgs<N extends EndpointName> = Record<never, never> extends BodyOf<N>
  ? [body?: BodyOf<N>, options?: CallOptions]
  : [body: BodyOf<N>, options?: CallOptions];

/** One method per endpoint, returning its JSend envelope. */
export type EndpointMethods = {
  [N in EndpointName as CamelCase<N>]: (...body: BodyArgs<N>) => Promise<JSend<ResultOf<N>>>;
};

/** The client: a method per endpoint, plus `call` for the full reply of any endpoint. */
export type RpgClient = EndpointMethods & {
  /** Calls an endpoint by function name and returns the envelope with HTTP status and headers. */
  call<N extends EndpointName>(name: N, ...args: CallArgs<N>): Promise<Reply<ResultOf<N>>>;
};

/** Thrown by {@link unwrap} for a JSend `fail` or `error`: carries the envelope. */
export class RpgApiError extends Error {
  constructor(readonly envelope: JSendFail | JSendError) {
    super(envelope.status === "fail" ? envelope.data.message : envelope.message);
    this.name = "RpgApiError";
  }
}

/** The success data of an envelope; a `fail` or `error` is thrown as {@link RpgApiError}. */
export function unwrap<T>(envelope: JSend<T>): T {
  if (envelope.status === "success") return envelope.data;
  throw new RpgApiError(envelope);
}

/** `find-spell` becomes `findSpell`. */
export function methodNameOf<N extends EndpointName>(name: N): CamelCase<N> {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as CamelCase<N>;
}

/** Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Creates a client; see {@link RpgClientOptions}. */
export function createRpgClient(options: RpgClientOptions): RpgClient {
  const supabase = options.supabase ?? supabaseFor(options);
  const retry = retrySettings(options.retry);

  async function call<N extends EndpointName>(
    name: N,
    ...[body, options]: CallArgs<N>
  ): Promise<Reply<ResultOf<N>>> {
    const headers: Record<string, string> = options?.idempotencyKey
      ? { "Idempotency-Key": options.idempotencyKey }
      : {};
    for (let attempt = 0;; attempt++) {
      const reply = await invokeOnce<ResultOf<N>>(supabase, name, body ?? {}, headers);
      if (!retry || reply.httpStatus !== 429 || attempt >= retry.retries) return reply;
      const wait = retryAfterSeconds(reply.headers);
      if (wait === null || wait > retry.maxWaitSeconds) return reply;
      await retry.sleep(wait * 1000);
    }
  }

  const methods: Record<string, (body?: unknown) => Promise<unknown>> = {};
  for (const name of Object.keys(contract) as EndpointName[]) {
    methods[methodNameOf(name)] = async (body?: unknown) =>
      (await call(name, body as BodyOf<typeof name>)).body;
  }
  // The loop above fills exactly the keys EndpointMethods names, one per endpoint.
  return { ...methods, call } as unknown as RpgClient;
}

function supabaseFor(options: RpgClientOptions): SupabaseClient {
  if (!options.url) throw new TypeError("Cannot create the client: pass url or supabase");
  const token = options.token ?? null;
  return createClient(options.url, options.publishableKey ?? "sb_publishable_local", {
    // A fixed bearer and no auth session; a publishable key is never sent as the bearer.
    accessToken: () => Promise.resolve(token),
    global: options.fetch ? { fetch: options.fetch } : {},
  });
}

function retrySettings(
  retry: RpgClientOptions["retry"],
): Required<RetryOptions> | null {
  if (!retry) return null;
  const given = retry === true ? {} : retry;
  return {
    retries: given.retries ?? 3,
    maxWaitSeconds: given.maxWaitSeconds ?? 60,
    sleep: given.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}

/**
 * One invocation. supabase-js reports any non-2xx answer as a FunctionsHttpError; the JSend body
 * of the catalogued 401/403/413/429 (and of 4xx/5xx in general) is read from it, so callers see
 * one envelope type whatever the status. Network failures are thrown.
 */
async function invokeOnce<T>(
  supabase: SupabaseClient,
  name: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Reply<T>> {
  const { data, error, response } = await supabase.functions.invoke(name, {
    body: body as Record<string, unknown>,
    headers,
  });
  if (error instanceof FunctionsHttpError) {
    const res: Response = error.context;
    return { httpStatus: res.status, headers: res.headers, body: await envelopeOf<T>(res) };
  }
  if (error) throw error;
  return {
    httpStatus: response?.status ?? 200,
    headers: response?.headers ?? new Headers(),
    body: asEnvelope<T>(data, response?.status ?? 200),
  };
}

async function envelopeOf<T>(res: Response): Promise<JSend<T>> {
  const text = await res.text().catch(() => "");
  try {
    return asEnvelope<T>(JSON.parse(text), res.status);
  } catch {
    return asEnvelope<T>(text, res.status);
  }
}

function asEnvelope<T>(value: unknown, httpStatus: number): JSend<T> {
  const fail = JSendFail.safeParse(value);
  if (fail.success) return fail.data;
  const error = JSendError.safeParse(value);
  if (error.success) return error.data;
  if (isSuccess(value)) return value as { status: "success"; data: T };
  // Not a JSend body (a proxy's error page, say): report it as an error envelope.
  return { status: "error", message: `Unexpected HTTP ${httpStatus} answer without a JSend body` };
}

function isSuccess(value: unknown): boolean {
  return typeof value === "object" && value !== null && "status" in value &&
    value.status === "success" && "data" in value;
}
