import { z } from "zod";
import { type DeletableType, DeleteContentBody } from "@shared/content.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

// Which table each type lives in (schema public). One line per type.
const TABLES: Record<DeletableType, string> = {
  "trait": "trait",
  "item": "item",
  "spell": "spell",
  "class": "class",
  "archetype": "archetype",
  "versatile-heritage": "versatile_heritage",
  "class-archetype": "class_archetype",
  "ability-block": "ability_block",
  "creature": "creature",
  "hazard": "hazard",
  "ancestry": "ancestry",
  "background": "background",
  "language": "language",
  "content-source": "content_source",
  "encounter": "encounter",
  "character": "character",
  "campaign": "campaign",
};

serve(endpoint({
  summary:
    "Deletes one record of the given type; only its owner (for content, its source's owner) or an admin may",
  auth: ["api_key", "jwt"],
  body: DeleteContentBody,
  result: z.literal(true),
  run: async ({ body, tx }) => {
    const table = `public."${TABLES[body.type]}"`;
    const deleted = await tx.unsafe(`delete from ${table} where id = $1::bigint returning id`, [
      body.id,
    ]);
    if (deleted.length > 0) return true as const;
    const visible = await tx.unsafe(`select 1 from ${table} where id = $1::bigint`, [body.id]);
    throw fail(visible.length > 0 ? "You do not have access to this content" : "Content not found");
  },
}));
