import { creatureType } from "@shared/content/creature.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(creatureType);
