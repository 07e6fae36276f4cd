import { versatileHeritageType } from "@shared/content/versatile_heritage.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(versatileHeritageType);
