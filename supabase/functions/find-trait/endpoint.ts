import { traitType } from "@shared/content/trait.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(findContentEndpoint(traitType));
