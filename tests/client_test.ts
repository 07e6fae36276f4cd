import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  contract,
  createRpgClient,
  methodNameOf,
  retryAfterSeconds,
  type RetryOptions,
  RpgApiError,
  type RpgClient,
  unwrap,
} from "@shared/client.ts";
import { importHandler, listFunctionNames, OTHER_FUNCTIONS } from "../scripts/server/server.ts";
import type { EndpointHandler } from "../supabase/functions/_shared/endpoint.ts";

const functionsDir = new URL("../supabase/functions/", import.meta.url);
import { fetchFrom, makeApiKey, makeUser, randomIp, server, test } from "./_harness.ts";

/** A client of the test server whose calls come from their own client address. */
function clientFor(token?: string, retry?: boolean | RetryOptions): RpgClient {
  return createRpgClient({
    url: server.appUrl,
    ...(token ? { token } : {}),
    ...(retry ? { retry } : {}),
    fetch: fetchFrom(randomIp()),
  });
}

/** A client on a scripted fetch: each call takes the next answer and records the request. */
function scripted(answers: (() => Response)[], retry?: boolean | RetryOptions) {
  const requests: Request[] = [];
  const fake: typeof fetch = (input, init) => {
    requests.push(new Request(input, init));
    const next = answers.shift();
    if (!next) throw new Error("No scripted answer left");
    return Promise.resolve(next());
  };
  const client = createRpgClient({
    url: "http://api.test",
    token: "0123456789abcdef0123456789abcdef0123",
    fetch: fake,
    ...(retry !== undefined ? { retry } : {}),
  });
  return { client, requests };
}

function limited(retryAfter: string): () => Response {
  return () =>
    Response.json({ status: "fail", data: { message: "Rate limit exceeded" } }, {
      status: 429,
      headers: { "Retry-After": retryAfter },
    });
}

const ok200 = () => Response.json({ status: "success", data: [] });

test("the function folders and the contract entries are the same set", async () => {
  deepStrictEqual(await listFunctionNames(), Object.keys(contract).sort());
  for (const name of OTHER_FUNCTIONS) await Deno.stat(new URL(`${name}/index.ts`, functionsDir));
});

test("each function folder implements the contract entry of its own name", async () => {
  const mismatched: string[] = [];
  for (const name of await listFunctionNames()) {
    const handler = await importHandler(name) as EndpointHandler;
    if (handler.endpoint !== name) mismatched.push(`${name} serves ${handler.endpoint}`);
  }
  deepStrictEqual(mismatched, []);
});

test("createRpgClient() has one camelCase method per endpoint, plus call", () => {
  const client = clientFor();
  for (const name of Object.keys(contract) as (keyof typeof contract)[]) {
    equal(typeof client[methodNameOf(name)], "function", name);
  }
  equal(methodNameOf("create-api-client"), "createApiClient");
  equal(typeof client.call, "function");
});

test("client calls reach the functions through supabase-js with typed envelopes", async () => {
  const user = await makeUser();
  const api = clientFor(user.access_token);
  const created = await api.createApiClient({ name: "typed client" });
  equal(created.status, "success");
  if (created.status !== "success") return;
  match(created.data.api_key, /^[0-9a-f-]{36}$/);
  const listed = unwrap(await api.findApiClient());
  deepStrictEqual(listed.map((c) => c.name), ["typed client"]);
  const withKey = clientFor(created.data.api_key);
  const reply = await withKey.call("find-api-client");
  equal(reply.httpStatus, 401);
  match(reply.headers.get("x-ratelimit-limit") ?? "", /^\d+$/);
});

test("client returns a JSend fail (HTTP 200) as a fail, and unwrap() throws it", async () => {
  const user = await makeUser();
  const api = clientFor(user.access_token);
  // @ts-expect-error name is required by the body type as well as by the server
  const refused = await api.createApiClient({});
  deepStrictEqual(
    refused.status === "fail" && refused.data.message,
    "Missing required field: name",
  );
  await rejects(
    async () => unwrap(await api.deleteApiClient({ id: 2 ** 40 })),
    (e) => e instanceof RpgApiError && e.message === "API client not found",
  );
});

test("client surfaces the JSend body of 401, 403 and 413 answers, not a FunctionsHttpError", async () => {
  const unknownKey = clientFor(crypto.randomUUID());
  const unauthorized = await unknownKey.call("find-spell", { name: "x" });
  equal(unauthorized.httpStatus, 401);
  deepStrictEqual(unauthorized.body, { status: "fail", data: { message: "Invalid API Key" } });

  const { apiKey } = await makeApiKey(await makeUser());
  const forbidden = await clientFor(apiKey).call("find-character", { id: 2 ** 40 });
  equal(forbidden.httpStatus, 403);
  deepStrictEqual(forbidden.body, {
    status: "fail",
    data: { message: "You do not have access to this character" },
  });

  const tooLarge = await clientFor().call("report-client-error", {
    code: "save_failed",
    surface: "sheet",
    release: "local",
    trace_id: crypto.randomUUID(),
    // @ts-expect-error unknown fields are refused by the type as well as by the server
    padding: "x".repeat(600),
  });
  equal(tooLarge.httpStatus, 413);
  equal(tooLarge.body.status, "fail");
});

test("client returns HTTP 429 with its Retry-After when retry is off", async () => {
  const anonymous = clientFor();
  let reply;
  for (let i = 0; i < 40; i++) {
    reply = await anonymous.call("find-spell", {});
    if (reply.httpStatus === 429) break;
  }
  equal(reply?.httpStatus, 429);
  equal(reply?.body.status, "fail");
  ok((retryAfterSeconds(reply?.headers ?? new Headers()) ?? 0) >= 1);
});

test("retry waits Retry-After seconds after a 429, then returns the next answer", async () => {
  const waits: number[] = [];
  const sleep = (ms: number) => (waits.push(ms), Promise.resolve());
  const { client, requests } = scripted([limited("2"), limited("1"), ok200], { sleep });
  const found = await client.findSpell({ name: "Shield" });
  deepStrictEqual(found, { status: "success", data: [] });
  deepStrictEqual(waits, [2000, 1000]);
  equal(requests.length, 3);
  equal(new URL(requests[0]!.url).pathname, "/functions/v1/find-spell");
  equal(requests[0]!.headers.get("authorization"), "Bearer 0123456789abcdef0123456789abcdef0123");
  deepStrictEqual(await requests[2]!.json(), { name: "Shield" });
});

test("retry stops after `retries`, and never waits longer than maxWaitSeconds", async () => {
  const waits: number[] = [];
  const sleep = (ms: number) => (waits.push(ms), Promise.resolve());
  const capped = scripted([limited("1"), limited("1"), ok200], { retries: 1, sleep });
  equal((await capped.client.call("find-spell", {})).httpStatus, 429);
  equal(capped.requests.length, 2);
  const long = scripted([limited("600"), ok200], { maxWaitSeconds: 60, sleep });
  equal((await long.client.call("find-spell", {})).httpStatus, 429);
  equal(long.requests.length, 1);
  deepStrictEqual(waits, [1000]);
});

test("retry is opt-in: without it a 429 is returned at once", async () => {
  const { client, requests } = scripted([limited("1"), ok200]);
  const reply = await client.call("find-spell", {});
  equal(reply.httpStatus, 429);
  deepStrictEqual(reply.body, { status: "fail", data: { message: "Rate limit exceeded" } });
  equal(requests.length, 1);
});

test("a non-JSend answer becomes a JSend error; a network failure is thrown", async () => {
  const { client } = scripted([() => new Response("<h1>Bad gateway</h1>", { status: 502 })]);
  const reply = await client.call("find-spell", {});
  equal(reply.httpStatus, 502);
  deepStrictEqual(reply.body, {
    status: "error",
    message: "Unexpected HTTP 502 answer without a JSend body",
  });
  const broken = createRpgClient({
    url: "http://api.test",
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  await rejects(() => broken.findSpell({}));
});

test("retryAfterSeconds() reads delta-seconds and HTTP dates", () => {
  equal(retryAfterSeconds(new Headers({ "Retry-After": "7" })), 7);
  const now = Date.parse("2026-01-01T00:00:00Z");
  equal(
    retryAfterSeconds(new Headers({ "Retry-After": "Thu, 01 Jan 2026 00:00:30 GMT" }), now),
    30,
  );
  equal(retryAfterSeconds(new Headers()), null);
  equal(retryAfterSeconds(new Headers({ "Retry-After": "soon" })), null);
});
