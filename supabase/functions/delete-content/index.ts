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
  run: async ({ body, tx }) => {
    const table = `public."${tableOf(body.type)}"`;
    const deleted = await tx.unsafe(`delete from ${table} where id = $1::bigint returning id`, [
      body.id,
    ]);
    if (deleted.length > 0) return true as const;
    const visible = await tx.unsafe(`select 1 from ${table} where id = $1::bigint`, [body.id]);
    throw fail(visible.length > 0 ? "You do not have access to this content" : "Content not found");
  },
}));
