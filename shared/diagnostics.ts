import { z } from "zod";

/** What went wrong on the client, as one of a fixed list of codes. */
export const ClientErrorCode = z.enum([
  "content_load_failed",
  "calculation_failed",
  "save_failed",
  "auth_failed",
  "update_failed",
  "chunk_failed",
  "unhandled_error",
  "unhandled_rejection",
]).meta({ id: "ClientErrorCode" });
export type ClientErrorCode = z.infer<typeof ClientErrorCode>;

/** Where in the web application it went wrong. */
export const ClientErrorSurface = z.enum([
  "sheet",
  "builder",
  "account",
  "homebrew",
  "campaign",
  "other",
]).meta({ id: "ClientErrorSurface" });
export type ClientErrorSurface = z.infer<typeof ClientErrorSurface>;

/** The build that reported it: a git commit hash (7 to 40 hex digits) or `local`. */
export const ClientRelease = z.string().regex(/^(?:[a-f0-9]{7,40}|local)$/, {
  error: "expected a 7 to 40 character lowercase hex commit hash or local",
});

/**
 * Body of report-client-error. Strict on purpose: exactly these four fields, each from a closed
 * set or a fixed pattern, so no free text (messages, stack traces, URLs, account data) can ever
 * reach the logs through this endpoint.
 */
export const ClientErrorReport = z.strictObject({
  code: ClientErrorCode,
  surface: ClientErrorSurface,
  release: ClientRelease,
  trace_id: z.uuid(),
}).meta({ id: "ClientErrorReport" });
export type ClientErrorReport = z.infer<typeof ClientErrorReport>;

/** Largest body report-client-error reads, in bytes; a larger one is refused with HTTP 413. */
export const CLIENT_ERROR_MAX_BODY_BYTES = 512;

/** Accepted reports written to the log per minute per process; the rest are only counted. */
export const CLIENT_ERROR_LOG_LIMIT = 60;
