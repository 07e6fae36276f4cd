import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { Unavailable } from "../envelope.ts";
import { parseObjectName } from "./object_name.ts";
import { SupabaseStore } from "./supabase_store.ts";

const name = parseObjectName(
  "portraits",
  `${crypto.randomUUID()}/${"ab".repeat(32)}.png`,
)!;

/** Serves one canned status on a loopback port and records what it was sent. */
function fakeStorage(status: number) {
  const seen: { method: string; path: string; headers: Headers; bytes: Uint8Array }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      headers: req.headers,
      bytes: new Uint8Array(await req.arrayBuffer()),
    });
    return Response.json({ Key: "x" }, { status });
  });
  return { seen, url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

Deno.test("SupabaseStore.put() uploads with the service key and returns the public object URL", async () => {
  const fake = fakeStorage(200);
  try {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const url = await new SupabaseStore(fake.url, "service-key").put(name, bytes);
    equal(url, `${fake.url}storage/v1/object/public/portraits/${name.path}`);
    const [request] = fake.seen;
    equal(request?.method, "POST");
    equal(request?.path, `/storage/v1/object/portraits/${name.path}`);
    equal(request?.headers.get("authorization"), "Bearer service-key");
    equal(request?.headers.get("apikey"), "service-key");
    equal(request?.headers.get("content-type"), "image/png");
    equal(request?.headers.get("x-upsert"), "true");
    deepStrictEqual(request?.bytes, bytes);
  } finally {
    await fake.close();
  }
});

Deno.test("SupabaseStore.put() reports a refused or unreachable store as unavailable", async () => {
  const fake = fakeStorage(500);
  try {
    await rejects(
      new SupabaseStore(fake.url, "k").put(name, new Uint8Array([1])),
      (e) => e instanceof Unavailable,
    );
  } finally {
    await fake.close();
  }
  await rejects(
    new SupabaseStore("http://127.0.0.1:9", "k").put(name, new Uint8Array([1])),
    (e) => e instanceof Unavailable,
  );
});

Deno.test("SupabaseStore.remove() deletes each bucket's paths in one call with the service key", async () => {
  const fake = fakeStorage(200);
  const background = parseObjectName(
    "backgrounds",
    `${crypto.randomUUID()}/${"cd".repeat(32)}.png`,
  )!;
  try {
    await new SupabaseStore(fake.url, "service-key").remove([name, background, name]);
    const calls = fake.seen.map((request) => ({
      method: request.method,
      path: request.path,
      authorization: request.headers.get("authorization"),
      body: JSON.parse(new TextDecoder().decode(request.bytes)),
    }));
    deepStrictEqual(calls, [
      {
        method: "DELETE",
        path: "/storage/v1/object/portraits",
        authorization: "Bearer service-key",
        body: { prefixes: [name.path, name.path] },
      },
      {
        method: "DELETE",
        path: "/storage/v1/object/backgrounds",
        authorization: "Bearer service-key",
        body: { prefixes: [background.path] },
      },
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("SupabaseStore.remove() reports a refusing store as unavailable", async () => {
  const fake = fakeStorage(500);
  try {
    await rejects(new SupabaseStore(fake.url, "k").remove([name]), (e) => e instanceof Unavailable);
  } finally {
    await fake.close();
  }
});
