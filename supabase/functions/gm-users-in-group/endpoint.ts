import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { z } from "zod";
import { GmGroupMember } from "@shared/gm_groups.ts";
import { endpoint } from "../_shared/endpoint.ts";

export const handler = endpoint(accountsEndpoints, "gm-users-in-group", {
  run: async ({ tx }) =>
    await tx<z.input<typeof GmGroupMember>[]>`
      select user_id, display_name, image_url, added_at from private.gm_group_members()`,
});
