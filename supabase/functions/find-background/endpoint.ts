import { backgroundType } from "@shared/content/background.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(backgroundType);
