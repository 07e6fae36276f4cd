import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(accountsEndpoints, "gm-remove-from-group", {
  run: async ({ body, tx }) => {
    const removed = await tx`
      delete from public.gm_group_member where user_id = ${body.user_id}::uuid returning user_id`;
    if (removed.length === 0) throw fail("Failed to remove from group");
    return "Removed from group" as const;
  },
});
