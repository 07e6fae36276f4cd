import { versatileHeritageType } from "@shared/content/versatile_heritage.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(createContentEndpoint(versatileHeritageType));
