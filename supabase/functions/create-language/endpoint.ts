import { languageType } from "@shared/content/language.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(languageType);
