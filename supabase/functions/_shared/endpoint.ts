/**
 * The pipeline every function runs, once: `endpoint(area, name, serverSide)` pairs a contract entry
 * with its server side (`endpoint_spec.ts`) and answers each request in order.
 */
import type { z } from "zod";
import { bearerHeader } from "./auth/classify_bearer.ts";
import { type Credential, resolveCredential, type UsableCredential } from "./auth/credential.ts";
import { actsForUser } from "./auth/identity.ts";
import type { EndpointName } from "@shared/contract.ts";
import { DEFAULT_MAX_BODY_BYTES, type EndpointContract } from "@shared/contract/entry.ts";
import { RowStream } from "./row_stream.ts";
import { takeStreamPlace } from "./stream_places.ts";
import { mapDatabaseError } from "./db_errors.ts";
import { env } from "./env.ts";
import { jsonResponse, successBody, Unavailable } from "./envelope.ts";
import { log } from "./log.ts";
import { Verdict } from "./rate_limit/verdict.ts";
import { hasSmallBody, parseJsonBody, readBodyCapped } from "./read_body.ts";
import { refusals } from "./refusals.ts";
import { sha256Hex } from "./sha256.ts";
import { checkedList, checkedResult, validationFail } from "./validation.ts";
import { idempotencyKeyOf } from "./idempotency.ts";
import { corsHeaders } from "./cors.ts";
import { clientAddress } from "./client_address.ts";
import { answer } from "./answer.ts";
import { confirmApiKey, runInTransaction } from "./handler_transaction.ts";
import type { EndpointHandler, EndpointSpec, ServerSide } from "./endpoint_spec.ts";

export type { EndpointHandler };

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

function serviceSecretFor(spec: EndpointContract): string | undefined {
  return spec.auth.includes("service") ? env.CONTENT_UPDATE_SECRET : undefined;
}
