import { classArchetypeType } from "@shared/content/class_archetype.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(classArchetypeType);
