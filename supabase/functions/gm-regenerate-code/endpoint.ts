import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(accountsEndpoints, "gm-regenerate-code", {
  run: async ({ tx }) => {
    const [row] = await tx<{ done: boolean }[]>`select private.regenerate_gm_code() as done`;
    if (!row?.done) throw fail("Failed to regenerate code");
    return "Code regenerated" as const;
  },
});
