import type { z } from "zod";
import { type ContentTypeName, contentTypes } from "@shared/content_types.ts";
import type { ContractOf } from "@shared/contract.ts";
import { endpoint, type EndpointHandler } from "../endpoint.ts";
import { oneOrMany } from "../one_or_many.ts";
import type { RowStream } from "../row_stream.ts";
import { findAllContent, findStatement } from "./find_content.ts";
import { saveContent, savesInOneStatement } from "./save_content.ts";
import { type ContentTable, contentTables } from "./tables.ts";

// Over every type at once the compiler cannot pair a table's rows with its own endpoint's result;
// the rows are the registry resource's columns, and the pipeline checks them against the result.
type FoundRows = z.input<ContractOf<`find-${ContentTypeName}`>["result"]>;
type SavedRow = z.input<ContractOf<`create-${ContentTypeName}`>["result"]>;

/** `find-<type>`: the records of one content type the caller may read, in one read statement. */
export function findContentEndpoint(type: ContentTypeName): EndpointHandler {
  const table: ContentTable = contentTables[type];
  return endpoint(`find-${type}`, {
    // By id: one statement. Without: every matching row, streamed from the request's transaction.
    read: {
      when: (body) => body.id !== undefined,
      statement: (body) => findStatement(table, body),
      result: (rows, body) => oneOrMany(body.id, rows) as FoundRows,
    },
    run: async ({ body, tx }) => await findAllContent(tx, table, body) as FoundRows | RowStream,
    readOnly: true,
  });
}

/** `create-<type>`: inserts a record of one content type, or updates the one named by id. */
export function createContentEndpoint(type: ContentTypeName): EndpointHandler {
  const table: ContentTable = contentTables[type];
  const entry = contentTypes[type];
  const insertId = "insertId" in entry ? entry.insertId : undefined;
  return endpoint(`create-${type}`, {
    // A record in a content source is saved in one statement (save_content.ts).
    oneStatement: (body) => savesInOneStatement(table, body as Record<string, unknown>, insertId),
    run: async ({ body, tx }) => await saveContent(tx, table, body, insertId) as SavedRow,
  });
}
