import { backgroundType } from "@shared/content/background.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(findContentEndpoint(backgroundType));
