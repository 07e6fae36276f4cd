import { ancestryType } from "@shared/content/ancestry.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(ancestryType);
