import { z } from "zod";

// The body and answer of open-ai-request, the web client's encounter, session and NPC generators.

/** Body of open-ai-request: the prompt, and optionally which of the server's models to use. */
export const OpenAiRequestBody = z.strictObject({
  content: z.string().trim().min(1).max(100_000),
  model: z.string().trim().min(1).max(100).optional(),
}).meta({ id: "OpenAiRequestBody" });
export type OpenAiRequestBody = z.infer<typeof OpenAiRequestBody>;

/** What open-ai-request answers: the completion's text. */
export const OpenAiRequestResult = z.string();
