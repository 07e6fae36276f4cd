import { ancestryType } from "@shared/content/ancestry.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(createContentEndpoint(ancestryType));
