import { Fail, fail, type RefusalStatus, Unavailable } from "./envelope.ts";

interface PgErrorFields {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  column_name?: string;
  constraint_name?: string;
  table_name?: string;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "QUEUE_TIMEOUT", // no connection became free within the pool's queue_timeout
  "QUERY_TIMEOUT", // a statement unanswered past the pool's query_timeout
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  // The database refuses the connection as configured: the operator's to fix, not the caller's.
  "28000", // invalid_authorization_specification (a role that may not log in)
  "28P01", // invalid_password
  "3D000", // invalid_catalog_name (no such database)
  "ENOTFOUND", // the host name does not resolve
  "EAI_AGAIN", // the host name could not be resolved for now
]);

/** PostgREST's convention: a function raises SQLSTATE PTxxx to answer with HTTP status xxx. */
const STATUS_CODES: Readonly<Record<string, RefusalStatus>> = {
  PT401: 401,
  PT403: 403,
  PT429: 429,
};

/** Whether an error means the database connection is gone (not a refusal of one statement). */
export function isConnectionError(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const code = (e as PgErrorFields).code ?? "";
  return CONNECTION_CODES.has(code) || code.startsWith("08");
}

/**
 * Whether the database refused a statement for want of a privilege or a row-level policy
 * (SQLSTATE 42501): what a caller without a user meets when it tries to write.
 */
export function isPermissionRefusal(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as PgErrorFields).code === "42501";
}

function readable(name: string | undefined): string {
  return (name ?? "value").replaceAll("_", " ");
}

/**
 * Maps a database error to what the caller sees: their mistakes become a JSend fail with a clear
 * message; a lost connection becomes 503; anything else is returned unchanged (a generic 500).
 */
export function mapDatabaseError(e: unknown): unknown {
  if (e instanceof Fail || typeof e !== "object" || e === null) return e;
  const err = e as PgErrorFields;
  const code = err.code ?? "";
  // 57014: cancelled by the statement timeout (or a shutdown); the caller may retry later.
  if (isConnectionError(e) || code === "57014") return new Unavailable(e);
  if (code === "PT503") return new Unavailable(e);
  const status = STATUS_CODES[code];
  if (status !== undefined) return new Fail(err.message ?? "Not allowed", status);
  switch (code) {
    case "P0001": // raise exception from our triggers and functions: written for people
      return fail(err.message ?? "Request refused", parseDetail(err.detail));
    case "23502":
      return fail(`Missing required field: ${err.column_name ?? "unknown"}`);
    case "23505":
      return fail(`Already exists: ${readable(err.constraint_name)}`);
    case "23503": // the field, never the constraint: a name tells nothing a caller needs
      if (err.detail?.includes("is still referenced")) {
        return fail("Record is in use: other records refer to it");
      }
      return fail(`Referenced record not found: ${err.column_name ?? keyColumn(err.detail)}`);
    case "23514":
      return fail(`Invalid value: violates ${readable(err.constraint_name)}`);
    case "22001":
      return fail("Invalid value: a text field is too long");
    case "22003":
      return fail("Invalid value: a number is out of range");
    case "54001": // stack depth limit exceeded: a value nested too deeply
      return fail("Invalid value: a value is nested too deeply");
    case "22021": // a NUL or otherwise invalid byte in text
    case "22P05": // \u0000 in jsonb
      return fail("Invalid value: a text field holds a character that cannot be stored");
    case "22P02":
    case "22023":
    case "22007":
    case "22008":
      return fail("Invalid value: a field has the wrong format");
    case "42501":
      return fail(
        `You do not have access to this ${readable(err.table_name ?? tableFromRls(err))}`,
      );
    default:
      return e;
  }
}

/** The column of a foreign-key error's detail, `Key (trait_id)=(5) is not present ...`. */
function keyColumn(detail: string | undefined): string {
  return /^Key \(([a-z_]+)\)=/.exec(detail ?? "")?.[1] ?? "a referenced id";
}

function tableFromRls(err: PgErrorFields): string | undefined {
  return /for table "([^"]+)"/.exec(err.message ?? "")?.[1];
}

function parseDetail(detail: string | undefined): Record<string, unknown> {
  if (!detail?.startsWith("{")) return {};
  try {
    const parsed: unknown = JSON.parse(detail);
    return typeof parsed === "object" && parsed !== null ? parsed as Record<string, unknown> : {};
  } catch {
    return {};
  }
}
