import { deepStrictEqual, equal, match } from "node:assert/strict";
import type { ContentUpdateWebhook } from "@shared/content_updates.ts";
import { postToBot } from "./post_to_bot.ts";

const payload: ContentUpdateWebhook = {
  content_update: {
    id: 1,
    created_at: "2026-11-22T00:00:00Z",
    user_id: crypto.randomUUID(),
    type: "spell",
    ref_id: 7,
    action: "UPDATE",
    data: { name: "Fireball" },
    content_source_id: 1,
    status: { state: "PENDING" },
    upvotes: [],
    downvotes: [],
    discord_msg_id: null,
  },
  submitter: { user_id: crypto.randomUUID(), display_name: "Ada" },
  content_source: { id: 1, name: "Core" },
};

/** Runs `fn` against a local bot that answers with `handler`. */
async function withBot(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const controller = new AbortController();
  const bot = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    handler,
  );
  try {
    await fn(`http://127.0.0.1:${bot.addr.port}/content-update`);
  } finally {
    controller.abort();
    await bot.finished;
  }
}

Deno.test("postToBot() sends the proposal with the secret and returns the message id", async () => {
  let seen: { auth: string | null; body: unknown } | null = null;
  await withBot(async (req) => {
    seen = { auth: req.headers.get("authorization"), body: await req.json() };
    return Response.json({ discord_msg_id: "1234567890123456789" });
  }, async (url) => {
    deepStrictEqual(await postToBot(url, "s".repeat(20), payload), {
      ok: true,
      discordMsgId: "1234567890123456789",
    });
  });
  deepStrictEqual(seen, { auth: `Bearer ${"s".repeat(20)}`, body: payload });
});

Deno.test("postToBot() reports an error status, a non-JSON body and a missing id", async () => {
  const answers = [
    new Response("down for maintenance", { status: 503 }),
    new Response("ok"),
    Response.json({ id: 5 }),
  ];
  const reasons: string[] = [];
  for (const answer of answers) {
    await withBot(() => answer, async (url) => {
      const outcome = await postToBot(url, "secret-secret-secret", payload);
      equal(outcome.ok, false);
      if (!outcome.ok) reasons.push(outcome.reason);
    });
  }
  match(reasons[0] ?? "", /HTTP 503/);
  match(reasons[1] ?? "", /not JSON/);
  match(reasons[2] ?? "", /discord_msg_id/);
});

Deno.test("postToBot() gives up on a bot slower than its timeout", async () => {
  await withBot(async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return Response.json({ discord_msg_id: "1" });
  }, async (url) => {
    const started = performance.now();
    const outcome = await postToBot(url, "secret-secret-secret", payload, 100);
    equal(outcome.ok, false);
    if (!outcome.ok) match(outcome.reason, /within 100 ms/);
    equal(performance.now() - started < 450, true, "it did not wait for the answer");
  });
});

Deno.test("postToBot() reports a bot that is not listening", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const outcome = await postToBot(`http://127.0.0.1:${port}/x`, "secret-secret-secret", payload);
  equal(outcome.ok, false);
  if (!outcome.ok) match(outcome.reason, /unreachable/);
});
