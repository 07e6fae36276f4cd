// The endpoints of the ai area: text generation for the game master's tools.
import { OpenAiRequestBody, OpenAiRequestResult } from "../ai.ts";
import type { EndpointContract } from "./entry.ts";

export const aiEndpoints = {
  "open-ai-request": {
    summary:
      "Generates text with the configured chat-completions provider (supporter tier 1, 60 an hour per user)",
    area: "ai",
    effect: "additive",
    auth: ["jwt"],
    upstream: true,
    body: OpenAiRequestBody,
    result: OpenAiRequestResult,
  },
} as const satisfies Record<string, EndpointContract>;
