import { abilityBlockType } from "@shared/content/ability_block.ts";
import { findContentEndpoint } from "../_shared/content/content_endpoints.ts";
import { serve } from "../_shared/serve.ts";

serve(findContentEndpoint(abilityBlockType));
