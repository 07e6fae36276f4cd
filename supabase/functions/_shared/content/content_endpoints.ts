import type { z } from "zod";
import type { ContentTypeContract } from "@shared/content/content_type.ts";
import { contentRecordEndpoints } from "@shared/contract/content_records.ts";
import type { contract, ContractOf } from "@shared/contract.ts";
import type { ContentTypeName } from "@shared/content_type_names.ts";
import { endpoint, type EndpointHandler } from "../endpoint.ts";
import { oneOrMany } from "../one_or_many.ts";
import type { RowStream } from "../row_stream.ts";
import { findAllContent, findStatement } from "./find_content.ts";
import { saveContent } from "./save_content.ts";
import { type ContentTable, contentTable } from "./tables.ts";

// Over every type at once the compiler cannot pair a table's rows with its own endpoint's result;
// the rows are the registry resource's columns, and the pipeline checks them against the result.
type FoundRows = z.input<ContractOf<`find-${ContentTypeName}`>["result"]>;
type SavedRow = z.input<ContractOf<`create-${ContentTypeName}`>["result"]>;

/** A type's two endpoints, typed as the contract table types them (over every type at once). */
function recordEndpointsOf(type: ContentTypeContract) {
  return contentRecordEndpoints(type) as unknown as Pick<
    typeof contract,
    `find-${ContentTypeName}` | `create-${ContentTypeName}`
  >;
}

/** `find-<type>`: the records of one content type the caller may read, in one read statement. */
export function findContentEndpoint(type: ContentTypeContract): EndpointHandler {
  const table: ContentTable = contentTable(type);
  return endpoint(recordEndpointsOf(type), `find-${type.name}`, {
    // By id: one statement. Without: every matching row, streamed from the request's transaction.
    read: {
      when: (body) => body.id !== undefined,
      statement: (body) => findStatement(table, body),
      result: (rows, body) => oneOrMany(body.id, rows) as FoundRows,
    },
    stream: async ({ body, tx }) => await findAllContent(tx, table, body) as FoundRows | RowStream,
  });
}

/** `create-<type>`: inserts a record of one content type, or updates the one named by id. */
export function createContentEndpoint(type: ContentTypeContract): EndpointHandler {
  const table: ContentTable = contentTable(type);
  const insertId = type.insertId;
  return endpoint(recordEndpointsOf(type), `create-${type.name}`, {
    run: async ({ body, tx }) => await saveContent(tx, table, body, insertId) as SavedRow,
  });
}
