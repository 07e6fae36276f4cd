import { contentSourceType } from "@shared/content/content_source.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(contentSourceType);
