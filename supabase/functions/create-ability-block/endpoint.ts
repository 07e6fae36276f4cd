import { abilityBlockType } from "@shared/content/ability_block.ts";
import { createContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(createContentEndpoint(abilityBlockType));
