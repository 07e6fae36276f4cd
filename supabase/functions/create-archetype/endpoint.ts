import { archetypeType } from "@shared/content/archetype.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(archetypeType);
