import { traitType } from "@shared/content/trait.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(traitType);
