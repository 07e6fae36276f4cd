import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { z } from "zod";
import { ApiClient } from "@shared/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";

export const handler = endpoint(accountsEndpoints, "find-api-client", {
  run: async ({ tx }) =>
    await tx<z.input<typeof ApiClient>[]>`
      select id, name, description, created_at, last_used_at
      from public.api_client order by created_at, id`,
});
