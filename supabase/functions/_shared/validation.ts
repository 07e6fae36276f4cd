import type { z } from "zod";
import { type Fail, fail } from "./envelope.ts";

type Issue = z.core.$ZodIssue;

/**
 * Turns the first zod issue into a fail naming the field; all issues go along in `data.issues`.
 * With the schema, an unknown field's fail also names the fields accepted there, and the nearest.
 */
export function validationFail(error: z.ZodError, schema?: z.ZodType): Fail {
  const issues = error.issues.map((issue) => ({
    field: fieldOf(issue.path),
    message: issue.message,
  }));
  const first = error.issues[0];
  // Any issue on an absent key means the field is missing (an enum reports invalid_value, not
  // invalid_type); unrecognized_keys carries the whole object as its input.
  const missing = first !== undefined && first.code !== "unrecognized_keys" && "input" in first &&
    first.input === undefined;
  if (missing) {
    const field = issues[0]?.field ?? "body";
    return fail(`Missing required field: ${field}`, { field, issues: issues.slice(0, 20) });
  }
  if (first?.code === "unrecognized_keys") {
    const accepted = schema ? acceptedKeys(schema, first.path) : [];
    const nearest = first.keys.map((key) => nearestOf(key, accepted)).filter((k) => k !== null);
    const hint = accepted.length === 0 ? "" : `. Accepted: ${accepted.join(", ")}` +
      (nearest.length > 0 ? `; did you mean ${nearest.join(", ")}?` : "");
    return fail(`Unknown field: ${first.keys.join(", ")}${hint}`, {
      field: fieldOf(first.path),
      issues: issues.slice(0, 20),
      ...(accepted.length > 0 ? { accepted } : {}),
    });
  }
  const { path, text } = first ? explain(first) : { path: [], text: "invalid input" };
  const field = fieldOf(path);
  return fail(`Invalid value for ${field}: ${text}`, { field, issues: issues.slice(0, 20) });
}

function fieldOf(path: readonly PropertyKey[]): string {
  return path.map(String).join(".") || "body";
}

/**
 * The path and wording of one issue. A union that no alternative matched says "invalid input"
 * by itself; name what each alternative expects instead, or, when an alternative matched the
 * type but failed deeper (an array with a bad element), report that deeper issue.
 */
function explain(issue: Issue): { path: PropertyKey[]; text: string } {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) {
    return { path: issue.path, text: lowerFirst(issue.message) };
  }
  const firsts = issue.errors.map((branch) => branch[0]).filter((i) => i !== undefined);
  const deeper = firsts.find((i) => i.path.length > 0);
  if (deeper) return explain({ ...deeper, path: [...issue.path, ...deeper.path] });
  const expected = [...new Set(firsts.map(expectation))];
  const received = "input" in issue ? `, received ${kindOf(issue.input)}` : "";
  return { path: issue.path, text: `expected ${expected.join(" or ")}${received}` };
}

function expectation(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected;
    case "invalid_value":
      return issue.values.map((v) => JSON.stringify(v)).join(" or ");
    default:
      return lowerFirst(issue.message.replace(/^Invalid input: /, ""));
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The keys an object schema accepts at `path` (through optional, nullable and default wrappers). */
function acceptedKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: unknown = schema;
  for (const key of [...path, null]) {
    for (let hops = 0; hops < 10; hops++) {
      const def = (at as { def?: { innerType?: unknown; in?: unknown; type?: string } })?.def;
      if (def?.innerType) at = def.innerType;
      else if (def?.type === "pipe" && def.in) at = def.in;
      else break;
    }
    const shape = (at as { shape?: Record<string, unknown> })?.shape;
    if (!shape || typeof shape !== "object") return [];
    if (key === null) return Object.keys(shape);
    at = shape[String(key)];
  }
  return [];
}

/** The accepted key nearest to `key` by edit distance, when it is close (at most 2 edits). */
function nearestOf(key: string, accepted: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of accepted) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const swap = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + swap);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Data checked against an endpoint's result schema: a mismatch is the server's error (500). */
export function checkedResult(schema: z.ZodType, data: unknown): unknown {
  const checked = schema.safeParse(data);
  if (!checked.success) {
    throw new Error(`Response does not match the result schema: ${checked.error.message}`);
  }
  return checked.data;
}

/** A batch of a streamed list, checked as the result schema checks a whole list. */
export function checkedList(schema: z.ZodType, batch: readonly unknown[]): unknown[] {
  const checked = checkedResult(schema, batch);
  if (!Array.isArray(checked)) throw new Error("A streamed answer's schema must take a list");
  return checked;
}
