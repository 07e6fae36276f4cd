import { versatileHeritageType } from "@shared/content/versatile_heritage.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(findContentEndpoint(versatileHeritageType));
