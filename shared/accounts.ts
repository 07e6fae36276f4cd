import { z } from "zod";
import { Id, Timestamp } from "./common.ts";

/** An API client as its owner sees it; the key is never part of it. */
export const ApiClient = z.object({
  id: Id,
  name: z.string(),
  description: z.string().nullable(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
}).meta({ id: "ApiClient" });
export type ApiClient = z.infer<typeof ApiClient>;

/** Body of create-api-client. */
export const CreateApiClientBody = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  description: z.string().trim().max(500).optional(),
});
export type CreateApiClientBody = z.infer<typeof CreateApiClientBody>;

/** A new client with its key, which is shown this once. */
export const CreatedApiClient = ApiClient.extend({ api_key: z.uuid() }).meta({
  id: "CreatedApiClient",
});
export type CreatedApiClient = z.infer<typeof CreatedApiClient>;

/** Body of find-api-client: no parameters. */
export const FindApiClientBody = z.strictObject({});

/** Body of delete-api-client. */
export const DeleteApiClientBody = z.object({ id: Id });
