import { ancestryType } from "@shared/content/ancestry.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(ancestryType);
