import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { contract, type EndpointContract } from "@shared/contract.ts";
import { honoursIdempotencyKey } from "@shared/idempotency.ts";
import {
  adminSql,
  call,
  fetchFrom,
  freshToken,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

const mcpUrl = `${server.functionsUrl}/mcp`;
const NO_ACCESS = "You do not have access to this character";

/** An MCP client of the SDK, connected to the mcp function with a bearer, from its own address. */
async function connect(token: string, ip = randomIp()): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: fetchFrom(ip),
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** POSTs one JSON-RPC message or batch to the mcp function as `token`, from `ip`. */
async function postMcp(
  token: string,
  body: unknown,
  { ip = randomIp(), timeoutMs = 30_000 } = {},
): Promise<Response> {
  return await fetchFrom(ip)(mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

async function makeCharacter(user: TestUser, name: string): Promise<number> {
  const created = successData(
    await call("create-character", { name }, { token: await freshToken(user) }),
  );
  return created.id;
}

/** A tool result's JSend envelope, checked to be its text content too. */
function envelopeOf(result: Awaited<ReturnType<Client["callTool"]>>) {
  const envelope = result.structuredContent as { status: string; data?: unknown } | undefined;
  ok(envelope, "a tool result carries structuredContent");
  const content = result.content as { type: string; text: string }[];
  equal(content.length, 1);
  equal(content[0]?.type, "text");
  deepStrictEqual(JSON.parse(content[0]?.text ?? ""), envelope);
  return envelope;
}

test("mcp lists one tool per endpoint that takes an API key, described by its contract entry", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const client = await connect(apiKey);
  try {
    const { tools } = await client.listTools();
    const entries = Object.entries(contract as Record<string, EndpointContract>)
      .filter(([name, entry]) => entry.auth.includes("api_key") && name !== "upload-public-file");
    deepStrictEqual(tools.map((t) => t.name).sort(), entries.map(([name]) => name).sort());
    for (const [name, entry] of entries) {
      const tool = tools.find((t) => t.name === name)!;
      ok(tool.description?.startsWith(entry.summary), name);
      for (const rule of entry.rules ?? []) {
        ok(tool.description?.includes(rule), `${name}: ${rule}`);
      }
      equal(tool.annotations?.readOnlyHint, entry.effect === "read", name);
      equal(tool.annotations?.destructiveHint, entry.effect === "destructive", name);
      equal(tool.inputSchema.type, "object", name);
      for (const key of ["anyOf", "oneOf", "allOf", "$ref"]) ok(!(key in tool.inputSchema), name);
      equal(
        "idempotency_key" in (tool.inputSchema.properties ?? {}),
        honoursIdempotencyKey(name),
        name,
      );
      if (honoursIdempotencyKey(name)) ok(entry.effect !== "read", `${name} writes`);
    }
    const createSpell = tools.find((t) => t.name === "create-spell")!;
    ok("id" in (createSpell.inputSchema.properties ?? {}), "a create-or-update body keeps its id");
    match(createSpell.description ?? "", /Without `id`.*it needs `name`/);
  } finally {
    await client.close();
  }
});

test("an mcp tool call runs its endpoint as the key: reads and writes, with JSend results", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const id = await makeCharacter(owner, "Granted hero");
  const { clientId, apiKey } = await makeApiKey(developer);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: developer.user_id,
      character_id: id,
    }, { token: owner.access_token }),
  );
  const client = await connect(apiKey);
  try {
    const found = await client.callTool({ name: "find-character", arguments: { id } });
    equal(found.isError, undefined);
    const read = envelopeOf(found) as { status: string; data: { id: number; name: string } };
    equal(read.status, "success");
    equal(read.data.id, id);
    equal(read.data.name, "Granted hero");

    const updated = await client.callTool({
      name: "update-character",
      arguments: { id, level: 3 },
    });
    equal(envelopeOf(updated).status, "success");
    const [row] = await adminSql<{ level: number }[]>`
      select level from public.character where id = ${id}`;
    equal(row?.level, 3);

    const refused = await client.callTool({
      name: "update-character",
      arguments: { id, name: "Renamed by a key" },
    });
    equal(refused.isError, true, "a change an API key may not make is a tool error");
    equal(envelopeOf(refused).status, "fail");
  } finally {
    await client.close();
  }
});

test("an mcp call for an ungranted character is a tool error without the character's data", async () => {
  const owner = await makeUser();
  const id = await makeCharacter(owner, "Secret Sorcerer");
  const { apiKey } = await makeApiKey(owner);
  const client = await connect(apiKey);
  try {
    const result = await client.callTool({ name: "find-character", arguments: { id } });
    equal(result.isError, true);
    deepStrictEqual(envelopeOf(result), { status: "fail", data: { message: NO_ACCESS } });
    ok(!JSON.stringify(result).includes("Secret Sorcerer"));

    const invalid = await client.callTool({ name: "find-spell", arguments: { id: "many" } });
    equal(invalid.isError, true, "an invalid argument is a tool error the model can correct");
    match(JSON.stringify(envelopeOf(invalid)), /Invalid value for id/);
  } finally {
    await client.close();
  }
});

test("an mcp write's idempotency_key answers a retry with the first result, once", async () => {
  const user = await makeUser({ tier: 2 });
  const { apiKey } = await makeApiKey(user);
  const client = await connect(apiKey);
  try {
    const name = `Retried ${crypto.randomUUID()}`;
    const create = () =>
      client.callTool({
        name: "create-content-source",
        arguments: { name, idempotency_key: `source-${name}` },
      });
    const first = envelopeOf(await create()) as { data: { id: number } };
    const again = envelopeOf(await create()) as { data: { id: number } };
    equal(again.data.id, first.data.id);
    const rows = await adminSql`select id from public.content_source where name = ${name}`;
    equal(rows.length, 1);
  } finally {
    await client.close();
  }
});

test("each tools/call of a batch spends one unit of the caller's rate budget", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const ip = randomIp();
  const remaining = async () =>
    Number(
      (await call("get-content-versions", { ids: [1] }, { token: apiKey, ip })).headers.get(
        "X-RateLimit-Remaining",
      ),
    );
  const before = await remaining();
  const batch = [1, 2, 3].map((id) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get-content-versions", arguments: { ids: [1] } },
  }));
  const res = await postMcp(apiKey, batch, { ip });
  equal(res.status, 200);
  const answers = await res.json() as { id: number; result: { isError?: boolean } }[];
  deepStrictEqual(answers.map((a) => a.id).sort(), [1, 2, 3]);
  ok(answers.every((a) => a.result.isError === undefined), JSON.stringify(answers));
  equal(await remaining(), before - 4);
});

test("an mcp batch that cancels its own request is answered in full: a cancellation is ignored", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
  for (const batch of [[list, cancel], [cancel, list]]) {
    // Unanswered, the request would wait until the client gives up.
    const res = await postMcp(apiKey, batch, { timeoutMs: 10_000 });
    equal(res.status, 200);
    const answers = [await res.json()].flat() as { id: number; result: { tools: unknown[] } }[];
    deepStrictEqual(answers.map((a) => a.id), [1]);
    ok(answers[0]!.result.tools.length > 0, JSON.stringify(answers).slice(0, 200));
  }
});

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

test("an mcp batch is refused whole, before any call runs, when it is empty, repeats a request id or lists the tools twice", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const name = `Batch ${crypto.randomUUID()}`;
  const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
  for (
    const [batch, reason] of [
      [[], /empty/],
      [
        [{ jsonrpc: "2.0", id: 7, method: "ping" }, toolCall(7, "create-campaign", { name })],
        /id 7/,
      ],
      [
        [toolCall(1, "create-campaign", { name }), toolCall(1, "create-campaign", { name })],
        /id 1/,
      ],
      [[list(1), list(2)], /lists the tools once/],
    ] as const
  ) {
    const res = await postMcp(apiKey, batch);
    equal(res.status, 400, JSON.stringify(batch).slice(0, 100));
    const answer = await res.json();
    equal(answer.error.code, -32600);
    match(answer.error.message, reason);
  }
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.campaign where name = ${name}`;
  equal(row?.n, 0, "no call of a refused batch ran");
});

test("an mcp call of a name that is no tool's, constructor included, is an invalid-params error", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  for (const name of ["constructor", "toString", "no-such-tool"]) {
    const res = await postMcp(apiKey, toolCall(1, name, {}));
    equal(res.status, 200);
    const answer = await res.json();
    equal(answer.error.code, -32602, name);
    equal(answer.error.message, `MCP error -32602: Unknown tool: ${name}`);
  }
});

test("an mcp tools/call with params of the wrong shape is an invalid-params error, not an internal one", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  for (
    const params of [
      { name: "find-spell", arguments: null },
      { name: "find-spell", arguments: [1] },
      { name: "find-spell", arguments: "id=1" },
      { arguments: {} },
      { name: 5 },
    ]
  ) {
    const res = await postMcp(apiKey, { jsonrpc: "2.0", id: 1, method: "tools/call", params });
    equal(res.status, 200);
    const answer = await res.json();
    equal(answer.error?.code, -32602, JSON.stringify(params));
  }
});

test("an mcp idempotency_key that no header can carry is a tool error naming the argument", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  // A header value's leading and trailing spaces are trimmed: a key may not carry them either.
  for (const key of ["a\nb", "a\u0000b", "a\u2603b", "", " ", " a", "a "]) {
    const res = await postMcp(
      apiKey,
      toolCall(1, "create-campaign", { name: "Keyed", idempotency_key: key }),
    );
    equal(res.status, 200);
    const { result } = await res.json();
    equal(result.isError, true, JSON.stringify(key));
    match(result.structuredContent.data.message, /^Invalid value for idempotency_key/);
  }
});

test("an mcp request gathers at most 4 MiB of results: calls that start past it are refused without running", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const [source] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, user_id, is_published)
    values ('Large spells', ${user.user_id}, false) returning id`;
  // Fifteen spells of 100,002 bytes (33,334 three-byte characters): about 1.5 MB a find, under one
  // result's 2 MiB; counted in characters, the budget would let a fourth and more run.
  const spells = await adminSql<{ id: number }[]>`
    insert into public.spell (name, rank, description, content_source_id)
    select 'Large ' || g, 1, repeat('€', 33334), ${source!.id}
    from generate_series(1, 15) g returning id`;
  const ids = spells.map((s) => Number(s.id));
  const batch = [1, 2, 3, 4].map((id) => toolCall(id, "find-spell", { id: ids }));
  const res = await postMcp(apiKey, batch);
  equal(res.status, 200);
  const answers = (await res.json() as {
    id: number;
    result: { isError?: boolean; structuredContent: { data: unknown[] | { message: string } } };
  }[]).sort((a, b) => a.id - b.id);
  for (const answer of answers.slice(0, 3)) {
    equal(answer.result.isError, undefined);
    equal((answer.result.structuredContent.data as unknown[]).length, 15);
  }
  equal(answers[3]!.result.isError, true);
  match(
    (answers[3]!.result.structuredContent.data as { message: string }).message,
    /^This request's results have reached 4194304 bytes/,
  );
});

test("the mcp function answers 401 with WWW-Authenticate without a credential, 405 to GET and DELETE", async () => {
  const unauthenticated = await fetchFrom(randomIp())(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  equal(unauthenticated.status, 401);
  equal(unauthenticated.headers.get("WWW-Authenticate"), "Bearer");
  const body = await unauthenticated.json();
  equal(body.status, "fail");
  match(body.data.message, /^Missing bearer token/);
  for (const method of ["GET", "DELETE"]) {
    const res = await fetchFrom(randomIp())(mcpUrl, {
      method,
      headers: { authorization: "Bearer 00000000-0000-0000-0000-000000000000" },
    });
    equal(res.status, 405, method);
    equal((await res.json()).status, "fail");
  }
});
