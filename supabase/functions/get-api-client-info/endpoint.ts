import { charactersEndpoints } from "@shared/contract/characters.ts";
import { ApiClientInfo } from "@shared/character_access.ts";
import type { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(charactersEndpoints, "get-api-client-info", {
  run: async ({ body, tx }) => {
    const [info] = await tx<z.input<typeof ApiClientInfo>[]>`
      select client_id, name, description, owner_user_id, owner_display_name
      from private.api_client_info(${body.client_id}, ${body.user_id}::uuid)`;
    if (!info) throw fail("API client not found");
    return info;
  },
});
