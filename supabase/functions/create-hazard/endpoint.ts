import { hazardType } from "@shared/content/creature.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(hazardType);
