import { spellType } from "@shared/content/spell.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(spellType);
