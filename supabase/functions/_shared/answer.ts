import type { Credential } from "./auth/credential.ts";
import { isPermissionRefusal, mapDatabaseError } from "./db_errors.ts";
import { errorBody, ErrorReply, Fail, failBody, jsonResponse, Unavailable } from "./envelope.ts";
import { log } from "./log.ts";
import { refusals } from "./refusals.ts";
import { Replay } from "./idempotency.ts";
import { REPLAY_HEADER } from "@shared/idempotency.ts";

/**
 * The one place a thrown value becomes a response: refusals as JSend fails with their status,
 * database errors mapped (`db_errors.ts`), anything else a logged 500. A permission refusal under
 * the anon key is a 401: signed out, the caller may only read what is public.
 */
export function answer(
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
