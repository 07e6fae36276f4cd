import { versatileHeritageType } from "@shared/content/versatile_heritage.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(versatileHeritageType);
