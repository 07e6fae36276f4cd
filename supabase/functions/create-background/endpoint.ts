import { backgroundType } from "@shared/content/background.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(backgroundType);
