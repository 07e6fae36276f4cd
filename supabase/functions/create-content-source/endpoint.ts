import { contentSourceType } from "@shared/content/content_source.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(createContentEndpoint(contentSourceType));
