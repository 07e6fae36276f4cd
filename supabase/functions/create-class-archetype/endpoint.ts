import { classArchetypeType } from "@shared/content/class_archetype.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(createContentEndpoint(classArchetypeType));
