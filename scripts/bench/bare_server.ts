/**
 * The limit of "one HTTP POST answers one row", for the load benchmark: a bare `Deno.serve` that
 * parses the JSON body and runs find-spell's SELECT by id as a prepared statement through
 * postgres.js, with the pool size the API server is given. No auth, limiter, validation or
 * envelope beyond what the API's answer looks like. Prints `Ready: <url>` once it listens.
 *
 * Environment: DATABASE_URL, DATABASE_POOL_SIZE, PORT.
 */
import postgres from "postgres";
import { selectList } from "../../supabase/functions/_shared/content/find_content.ts";
import { contentTypes } from "@shared/content_types.ts";
import { contentTable } from "../../supabase/functions/_shared/content/tables.ts";

const sql = postgres(Deno.env.get("DATABASE_URL")!, {
  max: Number(Deno.env.get("DATABASE_POOL_SIZE") ?? 10),
  onnotice: () => {},
  // As the API's pool reads them: ids as numbers.
  types: {
    int8: { to: 20, from: [20], serialize: String, parse: Number },
  },
});
const query = `select ${selectList(contentTable(contentTypes.spell))} from public.spell t
  where t.id = any($1::bigint[]) order by t.name, t.id limit 5000`;

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 0),
  onListen: ({ hostname, port }) => console.log(`Ready: http://${hostname}:${port}/`),
}, async (req) => {
  const body = await req.json() as { id: number };
  const rows = await sql.unsafe(query, [[body.id]], { prepare: true });
  return new Response(JSON.stringify({ status: "success", data: rows[0] }), {
    headers: { "content-type": "application/json" },
  });
});

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await sql.end({ timeout: 1 });
  Deno.exit(0);
});
