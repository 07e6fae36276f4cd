import { spellType } from "@shared/content/spell.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(spellType);
