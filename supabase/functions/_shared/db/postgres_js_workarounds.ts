/**
 * Where this project works around postgres.js 4.2.0, in one module. The pool (pool.ts) wraps each
 * reservation in `withLiteralValues`; the connection watch (connection_watch.ts) sends queries
 * through `refusedWhenSent` and drops a late transaction's connection with `dropConnectionOf`.
 * Nothing else knows of them. Each names what it works around, the test
 * that shows it on the unpatched dependency, and when it can be deleted.
 *
 * 1. An unnamed statement with parameters waits for Postgres to describe them before anything
 *    behind it is sent (postgres.js sends Parse, Describe and Flush, and waits; its README says so
 *    of `prepare: false`): behind the pooler (`DATABASE_PREPARE=false`) a request would cost about
 *    5 round trips instead of 1. Values are written in as literals (`withLiteralValues`); its
 *    escaping is fuzzed against Postgres in "sqlLiteral() is read back by Postgres as exactly the
 *    value". Shown by "an unnamed statement with parameters waits for its description before the
 *    next is sent"; delete when that test fails.
 * 2. A query is sent when it is awaited, not when it is made: a query a handler made before its
 *    transaction's COMMIT was sent, but awaited after, would run outside the transaction, as the
 *    login role. `refusedWhenSent` checks again as the query is sent (postgres.js itself refuses a
 *    released reservation's queries: "a released reservation refuses its queries"). Shown by "a
 *    query made in time but sent after its transaction was sealed is refused"; delete when the
 *    runner sends no COMMIT ahead of a handler's statements.
 * 3. A reservation whose server stops answering cannot be ended through postgres.js's API:
 *    `release()` waits for the statement in flight, `query_timeout` sends no cancel for a statement
 *    still waiting for its description, and a connection released in a transaction with nothing in
 *    flight is ended politely, waiting for the server. Its place in the pool stays taken until the
 *    server thaws or TCP gives up. At the transaction's deadline `dropConnectionOf` destroys the
 *    connection the transaction's BEGIN was sent on (`Query.connection`, set by the pool). Shown
 *    by "a released reservation whose server froze keeps its connection"; delete when its first half
 *    fails.
 */
import type postgres from "postgres";
import { hexOf } from "../hex.ts";

// ---- 1. Values written in as literals ----

// Wherever a statement goes unnamed (every statement with `DATABASE_PREPARE=false`, and `unsafe`
// without `prepare`), each caller value becomes a literal Postgres reads back as exactly that
// value, typed as an untyped parameter would be (a quoted constant of unknown type). Escaping:
// every value is an `E'...'` constant in which each backslash and each quote is doubled, read back
// verbatim whatever `standard_conforming_strings` says; NUL, which no Postgres text may hold, is
// refused as Postgres refuses it in a parameter. Statement text still comes from server code only.

/** An array in Postgres's text form (`{"1","two",NULL}`): objects in it as JSON, dates ISO 8601. */
export function arrayText(items: readonly unknown[]): string {
  const elements = items.map((item) => {
    if (item === null || item === undefined) return "NULL";
    if (Array.isArray(item)) return arrayText(item);
    const text = item instanceof Date
      ? item.toISOString()
      : typeof item === "object"
      ? JSON.stringify(item)
      : String(item);
    return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  });
  return `{${elements.join(",")}}`;
}

/** A literal that Postgres reads as `value`, the way a parameter of unknown type would be read. */
export function sqlLiteral(value: unknown): string {
  if (value === null) return "NULL";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
    case "string":
      return quoted(String(value));
    case "bigint":
      return `${quoted(String(value))}::int8`;
    case "undefined":
      throw Object.assign(new Error("Undefined values are not allowed"), {
        code: "UNDEFINED_VALUE",
      });
  }
  if (value instanceof Date) return `${quoted(value.toISOString())}::timestamptz`;
  if (value instanceof Uint8Array) return `'\\x${hexOf(value)}'::bytea`;
  if (Array.isArray(value)) return quoted(arrayText(value));
  return quoted(JSON.stringify(value));
}

function quoted(text: string): string {
  if (text.includes("\0")) {
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: "22021",
    });
  }
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** postgres.js's typed value (`sql.json(x)` and `sql.typed(x, oid)`). */
interface TypedParameter {
  value: unknown;
  type: number;
}

function isTypedParameter(value: unknown): value is TypedParameter {
  if (typeof value !== "object" || value === null) return false;
  // By its class, never by its own properties: a caller's JSON may name any `constructor`.
  const prototype = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null &&
    prototype.constructor?.name === "Parameter" &&
    typeof (value as { type?: unknown }).type === "number";
}

/** The literal of a value or of a postgres.js typed value (JSON as JSON, whatever its value). */
function literalOf(value: unknown): string {
  if (!isTypedParameter(value)) return sqlLiteral(value);
  if (value.type === JSONB || value.type === JSON_TYPE) {
    return `${quoted(JSON.stringify(value.value))}::${value.type === JSONB ? "jsonb" : "json"}`;
  }
  return sqlLiteral(value.value);
}

const JSON_TYPE = 114;
const JSONB = 3802;

/**
 * Whether postgres.js would send `value` as a parameter: plain values and its typed values, not its
 * query fragments, identifiers and helpers (class instances other than dates and byte arrays).
 */
function isValue(value: unknown): boolean {
  if (isTypedParameter(value)) return true;
  if (value === null || typeof value !== "object") return true;
  if (value instanceof Date || value instanceof Uint8Array) return true;
  if (Array.isArray(value)) return !(value[0] instanceof Promise);
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `text` with each `$n` replaced by the literal of `params[n - 1]`. */
function withLiterals(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= params.length) throw new Error(`No value for $${n}`);
    return literalOf(params[index]);
  });
}

/**
 * `sql` with caller values written in as literals wherever its statement would go unnamed: with
 * `prepared` false (the pool prepares nothing), everywhere: in tagged templates, in the row
 * helpers (`sql(values, keys)`: objects and arrays of numbers; an array of strings stays
 * identifiers) and in `unsafe(text, params)`. With `prepared` true, only in an `unsafe` that does
 * not ask for `prepare: true`. A value this misses is still sent as a parameter, correct and one
 * round trip slower.
 */
export function withLiteralValues<S extends postgres.ISql>(sql: S, prepared: boolean): S {
  const fragment = (value: unknown) => sql.unsafe(literalOf(value));
  const asFragments = (row: unknown): unknown => {
    if (Array.isArray(row)) {
      return row.every((x) => typeof x === "number") ? row.map(fragment) : row.map(asFragments);
    }
    if (typeof row !== "object" || row === null || !isValue(row)) return row;
    return Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, isValue(value) ? fragment(value) : value]),
    );
  };
  return new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      if (prepared) return Reflect.apply(target, self, args);
      const [first, ...rest] = args;
      if (Array.isArray(first) && "raw" in first) {
        return Reflect.apply(target, self, [
          first,
          ...rest.map((value) => isValue(value) ? fragment(value) : value),
        ]);
      }
      return Reflect.apply(target, self, [asFragments(first), ...rest]);
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "unsafe") return value;
      return (text: string, params?: unknown, options?: postgres.UnsafeQueryOptions) => {
        if (!Array.isArray(params) || params.length === 0 || (prepared && options?.prepare)) {
          return target.unsafe(text, params as never, options);
        }
        const { prepare: _, ...rest } = options ?? {};
        return target.unsafe(withLiterals(text, params), [], rest);
      };
    },
  });
}

// ---- 2. Queries checked again as they are sent ----

/** The part of a postgres.js query that sends it (on `execute`, `then`, `catch` and the like). */
interface Sendable {
  executed: boolean;
  handle(): Promise<void>;
  reject(error: unknown): void;
}

function isSendable(value: unknown): value is Sendable {
  return typeof value === "object" && value !== null && "handle" in value && "executed" in value;
}

/**
 * `query`, failing with `refusal()` instead of being sent if that names a reason when postgres.js
 * sends it (a microtask after `then`, so after `await`, or on `execute`). Anything that is not a
 * query (a fragment's helper) is returned as it is.
 */
export function refusedWhenSent<T>(query: T, refusal: () => Error | null): T {
  if (!isSendable(query)) return query;
  const send = query.handle.bind(query);
  query.handle = () => {
    const refused = query.executed ? null : refusal();
    if (refused === null) return send();
    query.executed = true;
    query.reject(refused);
    return Promise.resolve();
  };
  return query;
}

// ---- 3. Dropping a reservation's connection ----

/** What postgres.js notes on a query once it has placed it on a connection. */
interface PlacedQuery {
  connection?: { destroy(): void } | null;
}

/**
 * Closes the connection `query` was sent on at once, whatever it waits for: whatever else waits on
 * it is refused, and the pool opens another in its place.
 */
export function dropConnectionOf(query: unknown): void {
  (query as PlacedQuery | null)?.connection?.destroy();
}
