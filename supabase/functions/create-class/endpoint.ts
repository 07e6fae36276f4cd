import { classType } from "@shared/content/class.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = createContentEndpoint(classType);
