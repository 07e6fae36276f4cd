import type { DeletableType } from "@shared/content/delete_content.ts";
import { contentTypes } from "@shared/content_types.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

/** The table (schema public) a type lives in: the registry's, or a play record's own. */
function tableOf(type: DeletableType): string {
  switch (type) {
    case "encounter":
    case "character":
    case "campaign":
      return type;
    default:
      return contentTypes[type].table;
  }
}

serve(endpoint("delete-content", {
  // The delete and, when it removed nothing, whether the record is visible at all (to say why) are
  // one statement, sent with its COMMIT.
  oneStatement: () => true,
  run: async ({ body, tx }) => {
    const table = `public."${tableOf(body.type)}"`;
    const [row] = await tx.unsafe(
      `with deleted as (delete from ${table} where id = $1::bigint returning id)
       select exists (select from deleted) as deleted,
              exists (select from ${table} where id = $1::bigint) as visible`,
      [body.id],
    ).execute();
    if (row?.deleted === true) return true as const;
    throw fail(row?.visible ? "You do not have access to this content" : "Content not found");
  },
}));
