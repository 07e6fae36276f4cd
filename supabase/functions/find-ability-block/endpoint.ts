import { abilityBlockType } from "@shared/content/ability_block.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(abilityBlockType);
