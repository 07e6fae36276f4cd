import { classArchetypeType } from "@shared/content/class_archetype.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(classArchetypeType);
