import { classType } from "@shared/content/class.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";

export const handler = findContentEndpoint(classType);
