import { corsHeaders } from "./cors.ts";

/** HTTP statuses a refusal may carry; every other refusal is HTTP 200, as the spec's catalogue says. */
export type RefusalStatus = 200 | 400 | 401 | 403 | 405 | 409 | 413 | 422 | 429;

/** A refusal the caller can act on: becomes a JSend `fail`. Thrown by handlers and the pipeline. */
export class Fail extends Error {
  constructor(
    message: string,
    readonly httpStatus: RefusalStatus = 200,
    readonly data: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "Fail";
  }
}

/** Builds a JSend fail to throw: `throw fail("Campaign not found")`. */
export function fail(message: string, data: Record<string, unknown> = {}): Fail {
  return new Fail(message, 200, data);
}

/** A server-side condition the caller cannot fix but may retry, such as the database being down. */
export class Unavailable extends Error {
  constructor(cause: unknown) {
    super("Service temporarily unavailable", { cause });
    this.name = "Unavailable";
  }
}

/**
 * A server-side problem the caller is told about in a fixed sentence, such as an upstream service
 * refusing: a JSend `error` with HTTP 200, the form the web client shows to the person.
 */
export class ErrorReply extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ErrorReply";
  }
}

/** Builds a JSON response with CORS and the given extra headers. */
export function jsonResponse(
  body: unknown,
  status: number,
  headers: Record<string, string>,
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...corsHeaders, ...headers, "Content-Type": "application/json; charset=utf-8" },
  });
}

/** The JSend success envelope. */
export function successBody(data: unknown): { status: "success"; data: unknown } {
  return { status: "success", data: data === undefined ? null : data };
}

/** The JSend fail envelope for a refusal. */
export function failBody(f: Fail): { status: "fail"; data: Record<string, unknown> } {
  return { status: "fail", data: { ...f.data, message: f.message } };
}

/** The JSend error envelope: a generic message that never carries internals. */
export function errorBody(message: string): { status: "error"; message: string } {
  return { status: "error", message };
}
