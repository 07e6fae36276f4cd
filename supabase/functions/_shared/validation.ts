import type { z } from "zod";
import { type Fail, fail } from "./envelope.ts";

/** Turns the first zod issue into a fail naming the field; all issues go along in `data.issues`. */
export function validationFail(error: z.ZodError): Fail {
  const issues = error.issues.map((issue) => ({
    field: issue.path.map(String).join(".") || "body",
    message: issue.message,
  }));
  const first = error.issues[0];
  const field = issues[0]?.field ?? "body";
  // Any issue on an absent key means the field is missing (an enum reports invalid_value, not
  // invalid_type); unrecognized_keys carries the whole object as its input.
  const missing = first !== undefined && first.code !== "unrecognized_keys" && "input" in first &&
    first.input === undefined;
  const message = missing
    ? `Missing required field: ${field}`
    : first?.code === "unrecognized_keys"
    ? `Unknown field: ${first.keys.join(", ")}`
    : `Invalid value for ${field}: ${lowerFirst(first?.message ?? "invalid input")}`;
  return fail(message, { field, issues: issues.slice(0, 20) });
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
