import type { z } from "zod";
import type { ContractOf } from "@shared/contract.ts";
import { findAllContent, findStatement } from "../_shared/content/find_content.ts";
import { contentTable } from "../_shared/content/tables.ts";
import { contentSourceType } from "@shared/content/content_source.ts";
import { contentRecordEndpoints } from "@shared/contract/content_records.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";

type Found = z.input<ContractOf<"find-content-source">["result"]>;

const table = contentTable(contentSourceType);

export const handler = endpoint(contentRecordEndpoints(contentSourceType), "find-content-source", {
  // By id or external id: one statement. Otherwise every matching source, streamed.
  read: {
    when: (body) => body.id !== undefined || body.external_id !== undefined,
    statement: (body) => findStatement(table, body),
    // As the reference answers it: an external id names one source (or none).
    // The rows are the registry resource's columns; the pipeline checks them against the result.
    result: (rows, body) =>
      (body.external_id !== undefined ? rows[0] ?? null : oneOrMany(body.id, rows)) as Found,
  },
  stream: async ({ body, tx }) => await findAllContent(tx, table, body),
});
