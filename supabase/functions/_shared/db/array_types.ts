/**
 * The array types the project's columns and functions use (bigint[], int[], text[] and its kin),
 * parsed and serialized here so the driver need not fetch every array type of the database on each
 * new connection (postgres.js's `fetch_types`: a round trip and about 9.5 KB, 25-30 ms of a new
 * connection's first request, measured on Deno 2.1).
 */
import type postgres from "postgres";

const INT4_ARRAY = 1007;
const TEXT_ARRAY = 1009;
const VARCHAR_ARRAY = 1015;
const INT8_ARRAY = 1016;
const UUID_ARRAY = 2951;

type Element = string | number | null;
type ArrayValue = Element | ArrayValue[];

/** Parses Postgres's text form of an array (`{1,"two",NULL}`, nested for more dimensions). */
export function parseArray(text: string, element: (raw: string) => Element): ArrayValue[] {
  let at = 0;
  const list = (): ArrayValue[] => {
    const items: ArrayValue[] = [];
    at++; // {
    if (text[at] === "}") {
      at++;
      return items;
    }
    while (at < text.length) {
      if (text[at] === "{") {
        items.push(list());
      } else if (text[at] === '"') {
        let value = "";
        at++;
        while (text[at] !== '"') {
          if (text[at] === "\\") at++;
          if (at >= text.length) throw new Error("Malformed array from the database");
          value += text[at++];
        }
        at++;
        items.push(element(value));
      } else {
        const start = at;
        while (at < text.length && text[at] !== "," && text[at] !== "}") at++;
        const raw = text.slice(start, at);
        items.push(raw === "NULL" ? null : element(raw));
      }
      if (text[at++] === "}") return items;
    }
    throw new Error("Malformed array from the database");
  };
  // A lower bound other than 1 is written before the value (`[0:1]={a,b}`); none of ours has one.
  const brace = text.indexOf("{");
  at = brace;
  return list();
}

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

function arrayType(oid: number, element: (raw: string) => Element): postgres.PostgresType {
  return {
    to: oid,
    from: [oid],
    serialize: (value: unknown[]) => arrayText(value),
    parse: (text: string) => parseArray(text, element),
  };
}

/** The array types for postgres.js's `types` option. */
export const ARRAY_TYPES = {
  int4Array: arrayType(INT4_ARRAY, Number),
  int8Array: arrayType(INT8_ARRAY, Number),
  textArray: arrayType(TEXT_ARRAY, String),
  varcharArray: arrayType(VARCHAR_ARRAY, String),
  uuidArray: arrayType(UUID_ARRAY, String),
};
