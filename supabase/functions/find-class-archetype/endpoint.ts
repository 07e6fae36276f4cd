import { classArchetypeType } from "@shared/content/class_archetype.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(findContentEndpoint(classArchetypeType));
