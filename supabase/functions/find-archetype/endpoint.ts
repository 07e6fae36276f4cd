import { archetypeType } from "@shared/content/archetype.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(archetypeType);
