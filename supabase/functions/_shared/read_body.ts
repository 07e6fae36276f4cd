import { Fail, fail } from "./envelope.ts";
import { refusals } from "./refusals.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Longest a body may take to arrive. A client that trickles or stalls its upload holds a socket
 * and the bytes read so far; thousands of them grew the process by hundreds of megabytes and
 * were never closed.
 */
export const BODY_TIMEOUT_MS = 10_000;

/** Bodies up to this size may be read before the caller's budget is known (`hasSmallBody`). */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * The body's length as Content-Length declares it, or NaN. Content-Length is only trustworthy
 * without a transfer encoding; the HTTP server then delivers exactly that many bytes.
 */
function declaredLength(req: Request): number {
  if (req.headers.has("transfer-encoding")) return NaN;
  return Number(req.headers.get("content-length") ?? NaN);
}

/** Whether the request declares a body of at most SMALL_BODY_BYTES. */
export function hasSmallBody(req: Request): boolean {
  const length = declaredLength(req);
  return req.body !== null && Number.isSafeInteger(length) && length <= SMALL_BODY_BYTES;
}

/** Reads a request body as text, refusing with 413 once more than `maxBytes` would be read. */
export async function readBodyCapped(req: Request, maxBytes: number): Promise<string> {
  if (req.body === null) return "";
  // A body declared within the cap is read whole; otherwise the streamed bytes are counted.
  const length = declaredLength(req);
  if (length > maxBytes) throw refusals.bodyTooLarge(maxBytes);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(tooSlow()), BODY_TIMEOUT_MS);
  });
  const bytes = await Promise.race([
    Number.isSafeInteger(length)
      ? req.arrayBuffer().then((b) => new Uint8Array(b), unreadable)
      : readBytesCapped(req.body, maxBytes).then(
        (bytes) => bytes ?? Promise.reject(refusals.bodyTooLarge(maxBytes)),
        unreadable,
      ),
    late,
  ]).finally(() => clearTimeout(timer));
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Fail("Invalid JSON body: the body is not valid UTF-8", 400);
  }
}

/**
 * A stream's bytes, or null past `maxBytes` (the rest is then left unread); a failed read rejects.
 */
export async function readBytesCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      total += read.value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(read.value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The client went away mid-upload: its fault, not the server's. */
function unreadable(): never {
  throw new Fail("Invalid request body: the body could not be read to its end", 400);
}

function tooSlow(): Fail {
  return new Fail(
    `Invalid request body: the body did not arrive within ${BODY_TIMEOUT_MS / 1000} s`,
    400,
    {},
    { Connection: "close" },
  );
}

/** The deepest nesting of arrays and objects a body may have. */
export const MAX_NESTING = 100;

/** Whether JSON text nests arrays and objects deeper than `limit` (strings are skipped). */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return false;
}

/**
 * Parses a JSON body; an empty body is `{}`, as a call without parameters. A value no stored field
 * can hold (`SCREENS`) is refused here, naming the field it is in.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  if (nestingExceeds(text, MAX_NESTING)) {
    // Deeper values only exhaust stacks further on (Postgres refuses them with an error).
    throw fail(`Invalid value: the body is nested more than ${MAX_NESTING} levels deep`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Fail("Invalid JSON body", 400);
  }
  for (const { mayHold, matches, problem } of SCREENS) {
    const path = mayHold.test(text) ? firstPath(parsed, matches) : null;
    if (path === null) continue;
    const field = fieldName(path);
    throw fail(`Invalid value for ${field}: ${problem}`, { field });
  }
  return parsed;
}

/**
 * What no stored value can hold, each with the text that must appear in a body holding it, so most
 * bodies skip the walk: NUL, which no Postgres text or jsonb can hold (JSON carries it only as
 * \u0000); half of a surrogate pair, which text would store as U+FFFD and jsonb refuses (only an
 * escape carries it); a number past a double's range, which parses as Infinity and would be stored
 * as null (only a long run of digits or a three-digit exponent); a `__proto__` key, which the
 * contract's objects drop (zod guards against prototype pollution).
 */
const SCREENS = [
  {
    mayHold: /\\u0000/,
    matches: holds((text) => text.includes("\0")),
    problem: "text cannot contain NUL characters",
  },
  {
    mayHold: /\\u[dD][89a-fA-F]/,
    matches: holds((text) => !text.isWellFormed()),
    problem: "text cannot contain half of a surrogate pair (\\uD800-\\uDFFF alone)",
  },
  { mayHold: /\d{300}|[eE]\+?\d{3}/, matches: notFinite, problem: "the number is too large" },
  {
    mayHold: /proto|\\u/, // an escaped key is the same key
    matches: (_value: unknown, key: string) => key === "__proto__",
    problem: "__proto__ cannot be a key (objects drop it)",
  },
];

/** Whether a string value or a key fails `bad`. */
function holds(bad: (text: string) => boolean): (value: unknown, key: string) => boolean {
  return (value, key) => bad(key) || (typeof value === "string" && bad(value));
}

function notFinite(value: unknown): boolean {
  return typeof value === "number" && !Number.isFinite(value);
}

/** A path named readably and briefly, however deep the field or odd its key. */
function fieldName(path: string[]): string {
  const shown = path.slice(0, 8).map((key) => key.replaceAll("\0", "\\u0000"));
  return (shown.join(".") || "body") + (path.length > 8 ? ".…" : "");
}

/** The path of the first value (or key) that `matches`, or null when none does. */
function firstPath(
  root: unknown,
  matches: (value: unknown, key: string) => boolean,
): string[] | null {
  // Iterative with parent links, so a deeply nested body costs neither stack nor path copies.
  type Step = { value: unknown; key: string; parent: Step | null };
  const pathOf = (step: Step | null): string[] => {
    const keys: string[] = [];
    for (let at = step; at?.parent; at = at.parent) keys.push(at.key);
    return keys.reverse();
  };
  const pending: Step[] = [{ value: root, key: "", parent: null }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    if (matches(step.value, step.key)) return pathOf(step);
    if (typeof step.value === "object" && step.value !== null) {
      for (const [key, value] of Object.entries(step.value)) {
        pending.push({ value, key, parent: step });
      }
    }
  }
  return null;
}
