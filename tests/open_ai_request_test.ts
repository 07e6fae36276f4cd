import { deepStrictEqual, equal, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeUser,
  successData,
  test,
} from "./_harness.ts";

// open-ai-request against a local stand-in of an OpenAI-compatible chat-completions API. The
// server reads its environment once, at start-up; like the moderation-bot tests, each test here
// points the loaded configuration (the same module instance) at the stand-in and restores it.
const { env } = await import("../supabase/functions/_shared/env.ts");

const PROVIDER_KEY = `sk-test-${crypto.randomUUID()}`;

/** A chat-completions stand-in: answers, refuses with 429, or fails, as told. */
class StandInProvider {
  mode: "answer" | "busy" | "broken" = "answer";
  readonly received: { authorization: string | null; body: Record<string, unknown> }[] = [];
  readonly #server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => this.#handle(req),
  );
  readonly baseUrl = `http://127.0.0.1:${this.#server.addr.port}/v1`;

  async #handle(req: Request): Promise<Response> {
    const body = await req.json();
    this.received.push({ authorization: req.headers.get("authorization"), body });
    if (new URL(req.url).pathname !== "/v1/chat/completions") {
      return new Response("not found", { status: 404 });
    }
    if (this.mode === "busy") return Response.json({ error: "rate limited" }, { status: 429 });
    if (this.mode === "broken") return new Response("upstream exploded", { status: 500 });
    return Response.json({
      choices: [{ message: { role: "assistant", content: "A goblin ambush" } }],
    });
  }
}

const provider = new StandInProvider();

function providerTest(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    const saved = { url: env.OPENAI_BASE_URL, key: env.OPENAI_API_KEY };
    env.OPENAI_BASE_URL = provider.baseUrl;
    env.OPENAI_API_KEY = PROVIDER_KEY;
    provider.mode = "answer";
    try {
      await fn();
    } finally {
      if (saved.url === undefined) delete env.OPENAI_BASE_URL;
      else env.OPENAI_BASE_URL = saved.url;
      if (saved.key === undefined) delete env.OPENAI_API_KEY;
      else env.OPENAI_API_KEY = saved.key;
    }
  });
}

const CLIENT_BODY = {
  content: "Suggest an encounter for four level 2 heroes",
  model: "gpt-4o-mini",
};

providerTest("open-ai-request answers the completion text to a tier-1 user", async () => {
  const user = await makeUser({ tier: 1 });
  const before = provider.received.length;
  equal(
    successData(await call("open-ai-request", CLIENT_BODY, { token: user.access_token })),
    "A goblin ambush",
  );
  const sent = provider.received[before];
  ok(sent);
  equal(sent.authorization, `Bearer ${PROVIDER_KEY}`);
  deepStrictEqual(sent.body, {
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: CLIENT_BODY.content }],
  });
  // A model the server does not offer falls back to its default instead of spending on another.
  successData(
    await call("open-ai-request", { ...CLIENT_BODY, model: "o1-pro" }, {
      token: user.access_token,
    }),
  );
  equal(provider.received.at(-1)?.body.model, "gpt-4o-mini");
});

providerTest("open-ai-request needs supporter tier 1 and a signed-in user", async () => {
  const free = await makeUser();
  const before = provider.received.length;
  const refused = await call("open-ai-request", CLIENT_BODY, { token: free.access_token });
  equal(
    failMessage(refused),
    "User does not have access: AI generation requires supporter tier 1 or higher",
  );
  equal(refused.body.data.required_tier, 1);
  equal(failMessage(await call("open-ai-request", CLIENT_BODY), 401).length > 0, true);
  equal(provider.received.length, before, "the provider was not asked");
});

providerTest(
  "open-ai-request: a provider refusing (429) is HTTP 200 error in the reference words, no key shown",
  async () => {
    const user = await makeUser({ tier: 1 });
    provider.mode = "busy";
    const busy = await call("open-ai-request", CLIENT_BODY, { token: user.access_token });
    equal(busy.status, 200);
    deepStrictEqual(busy.body, {
      status: "error",
      message: "Too many requests, please try again later.",
    });
    provider.mode = "broken";
    const broken = await call("open-ai-request", CLIENT_BODY, { token: user.access_token });
    equal(broken.status, 200);
    equal(broken.body.status, "error");
    equal(
      JSON.stringify(broken.body).includes("exploded"),
      false,
      "the provider's text is not passed on",
    );
    equal(JSON.stringify([busy.body, broken.body]).includes(PROVIDER_KEY), false);
  },
);

providerTest("open-ai-request allows 60 generations an hour per user, across tokens", async () => {
  const user = await makeUser({ tier: 1 });
  // The budget is the database's: fill 59 of the hour's claims, then two calls reach the cap.
  await adminSql`
    insert into private.ai_request (user_id)
    select ${user.user_id}::uuid from generate_series(1, 59)`;
  successData(await call("open-ai-request", CLIENT_BODY, { token: user.access_token }));
  const before = provider.received.length;
  const over = await call("open-ai-request", CLIENT_BODY, { token: await freshToken(user) });
  equal(failMessage(over), "Too many requests, please try again later.");
  equal(provider.received.length, before, "the provider was not asked");
  // Claims older than an hour no longer count.
  await adminSql`
    update private.ai_request set requested_at = now() - interval '2 hours'
    where user_id = ${user.user_id}::uuid`;
  successData(await call("open-ai-request", CLIENT_BODY, { token: user.access_token }));
});

test("open-ai-request without a configured provider is a clear fail", async () => {
  const saved = env.OPENAI_BASE_URL;
  delete env.OPENAI_BASE_URL;
  try {
    const user = await makeUser({ tier: 1 });
    equal(
      failMessage(await call("open-ai-request", CLIENT_BODY, { token: user.access_token })),
      "AI generation is not configured on this server",
    );
  } finally {
    if (saved !== undefined) env.OPENAI_BASE_URL = saved;
  }
});
