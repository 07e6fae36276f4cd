import { abilityBlockType } from "@shared/content/ability_block.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(abilityBlockType);
