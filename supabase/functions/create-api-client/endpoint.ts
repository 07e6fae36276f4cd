import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { z } from "zod";
import { ApiClient } from "@shared/accounts.ts";
import { issueApiKey } from "../_shared/auth/signed_api_key.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { sha256Hex } from "../_shared/sha256.ts";

export const handler = endpoint(accountsEndpoints, "create-api-client", {
  run: async ({ body, tx }) => {
    const apiKey = issueApiKey();
    const [client] = await tx<z.input<typeof ApiClient>[]>`
      select id, name, description, created_at, last_used_at
      from private.create_api_client(${body.name}, ${body.description ?? null}, ${
      sha256Hex(apiKey)
    })`;
    return { ...ApiClient.parse(client), api_key: apiKey };
  },
});
