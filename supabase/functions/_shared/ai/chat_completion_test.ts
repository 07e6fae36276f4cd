import { equal, rejects } from "node:assert/strict";
import { ErrorReply } from "../envelope.ts";
import { chatCompletion, PROVIDER_FAILED } from "./chat_completion.ts";

Deno.test("chatCompletion() gives up on a provider that never answers", async () => {
  const controller = new AbortController();
  const never = Promise.withResolvers<void>();
  const provider = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    async () => {
      await never.promise;
      return new Response("late");
    },
  );
  try {
    const baseUrl = `http://127.0.0.1:${provider.addr.port}/v1`;
    await rejects(
      chatCompletion({ baseUrl, apiKey: "sk-test" }, "gpt-4o-mini", "hello", 50),
      (e) => e instanceof ErrorReply && e.message === PROVIDER_FAILED,
    );
  } finally {
    never.resolve();
    controller.abort();
    await provider.finished;
  }
});

Deno.test("chatCompletion() refuses an answer without a completion", async () => {
  const controller = new AbortController();
  const provider = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    () => Response.json({ choices: [] }),
  );
  try {
    const baseUrl = `http://127.0.0.1:${provider.addr.port}/v1/`;
    const error = await chatCompletion({ baseUrl, apiKey: "sk-test" }, "m", "hello").catch((e) =>
      e
    );
    equal(error instanceof ErrorReply, true);
  } finally {
    controller.abort();
    await provider.finished;
  }
});
