import { languageType } from "@shared/content/language.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(languageType);
