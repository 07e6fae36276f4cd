import { z } from "zod";
import { ApiClient, FindApiClientBody } from "@shared/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Lists the signed-in user's API clients, without keys",
  auth: ["jwt"],
  body: FindApiClientBody,
  result: z.array(ApiClient),
  run: async ({ tx }) =>
    await tx<z.input<typeof ApiClient>[]>`
      select id, name, description, created_at, last_used_at
      from public.api_client order by created_at, id`,
}));
