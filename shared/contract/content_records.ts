/** The contract of one content type's records: its `find-<type>` and `create-<type>`. */
import type { ContentTypeContract } from "../content/content_type.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

/** The two endpoints of a content type, named after it. */
export type ContentRecordEndpoints<T extends ContentTypeContract> =
  & {
    [K in `find-${T["name"]}`]: {
      summary: string;
      area: "content";
      effect: "read";
      auth: typeof USER_OR_KEY;
      body: T["find"];
      result: T["found"];
    };
  }
  & {
    [K in `create-${T["name"]}`]: {
      summary: string;
      area: "content";
      effect: "destructive";
      auth: typeof USER_OR_KEY;
      createRequires: readonly string[];
      rules?: readonly string[];
      body: T["save"];
      result: T["resource"];
    };
  };

function article(label: string): string {
  return /^[aeiou]/.test(label) ? `an ${label}` : `a ${label}`;
}

/** `find-<type>` and `create-<type>` of one content type. */
export function contentRecordEndpoints<T extends ContentTypeContract>(
  type: T,
): ContentRecordEndpoints<T> {
  const insertNote = type.insertId === undefined ? "" : ` (${type.insertId} inserts)`;
  const find: EndpointContract = {
    summary: `Finds ${type.plural} the caller may read`,
    area: "content",
    effect: "read",
    auth: USER_OR_KEY,
    body: type.find,
    result: type.found,
  };
  const create: EndpointContract = {
    summary: `Creates ${article(type.label)}, or updates the one named by id${insertNote}`,
    area: "content",
    effect: "destructive",
    auth: USER_OR_KEY,
    createRequires: type.createRequires,
    ...(type.saveRules ? { rules: type.saveRules } : {}),
    body: type.save,
    result: type.resource,
  };
  // The two keys ContentRecordEndpoints names, for this type's name.
  return { [`find-${type.name}`]: find, [`create-${type.name}`]: create } as ContentRecordEndpoints<
    T
  >;
}
