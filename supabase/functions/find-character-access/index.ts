import { serve } from "../_shared/serve.ts";
import { handler } from "./endpoint.ts";

serve(handler);
