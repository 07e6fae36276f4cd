import { DeletedUser, DeleteUserBody } from "@shared/users.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary:
    "Deletes the caller's account and everything it owns; refused while it owns content sources",
  auth: ["jwt"],
  body: DeleteUserBody,
  result: DeletedUser,
  run: async ({ tx }) => {
    const rows = await tx<{ user_id: string }[]>`
      select private.delete_own_account() as user_id`;
    return { userId: rows[0]?.user_id ?? "" };
  },
}));
