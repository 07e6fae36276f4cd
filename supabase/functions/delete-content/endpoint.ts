import { contentEndpoints } from "@shared/contract/content.ts";
import { tableOf } from "@shared/content_type_names.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(contentEndpoints, "delete-content", {
  run: async ({ body, tx }) => {
    const table = `public."${tableOf(body.type)}"`;
    const [row] = await tx.unsafe(
      `with deleted as (delete from ${table} where id = $1::bigint returning id)
       select exists (select from deleted) as deleted,
              exists (select from ${table} where id = $1::bigint) as visible`,
      [body.id],
    );
    if (row?.deleted === true) return true as const;
    throw fail(row?.visible ? "You do not have access to this content" : "Content not found");
  },
});
