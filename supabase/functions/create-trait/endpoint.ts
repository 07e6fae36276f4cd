import { traitType } from "@shared/content/trait.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(traitType);
