import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(accountsEndpoints, "gm-add-to-group", {
  run: async ({ body, tx }) => {
    const [row] = await tx<{ joined: boolean }[]>`
      select private.join_gm_group(${body.gm_user_id}::uuid, ${body.access_code}) as joined`;
    // One message for every reason, so the endpoint does not confirm which GMs or codes exist.
    if (!row?.joined) throw fail("Failed to add to group");
    return "Added to group" as const;
  },
});
