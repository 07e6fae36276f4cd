import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(accountsEndpoints, "delete-api-client", {
  run: async ({ body, tx }) => {
    const deleted = await tx`delete from public.api_client where id = ${body.id} returning id`;
    if (deleted.length === 0) throw fail("API client not found");
    return true as const;
  },
});
