import type { z } from "zod";
import { type Fail, fail } from "./envelope.ts";

type Issue = z.core.$ZodIssue;

/** Turns the first zod issue into a fail naming the field; all issues go along in `data.issues`. */
export function validationFail(error: z.ZodError): Fail {
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
    return fail(`Unknown field: ${first.keys.join(", ")}`, {
      field: fieldOf(first.path),
      issues: issues.slice(0, 20),
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
