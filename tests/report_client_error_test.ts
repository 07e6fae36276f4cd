import { withinOneMinute } from "./support/http.ts";
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { call, failMessage, fetchFrom, randomIp, server, successData, test } from "./_harness.ts";

const url = `${server.functionsUrl}/report-client-error`;

function report(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    code: "save_failed",
    surface: "sheet",
    release: "0a1b2c3d",
    trace_id: crypto.randomUUID(),
    ...overrides,
  };
}

/**
 * A chunked body (fetch sends a stream without Content-Length): `prefix`, then `chunks` pieces of
 * `size` bytes of JSON-legal whitespace. Counts how many pieces the client was asked for.
 */
function chunkedBody(prefix: string, chunks: number, size: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
} {
  let sent = 0;
  let started = false;
  const piece = new TextEncoder().encode(" ".repeat(size));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(new TextEncoder().encode(prefix));
      } else if (sent >= chunks) {
        controller.close();
      } else {
        sent++;
        controller.enqueue(piece);
      }
    },
  });
  return { stream, pulled: () => sent };
}

async function postChunked(stream: ReadableStream<Uint8Array>): Promise<Response> {
  return await fetchFrom(randomIp())(url, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: stream,
  });
}

test("report-client-error accepts a valid report without authentication", async () => {
  const res = await call("report-client-error", report());
  equal(successData(res), true);
  equal(res.headers.get("access-control-allow-origin"), "*");
  equal(res.headers.get("x-ratelimit-limit"), "30");
});

test("report-client-error accepts every listed code and surface, and release local", async () => {
  const ip = randomIp();
  const codes = [
    "content_load_failed",
    "calculation_failed",
    "save_failed",
    "auth_failed",
    "update_failed",
    "chunk_failed",
    "unhandled_error",
    "unhandled_rejection",
  ];
  const surfaces = ["sheet", "builder", "account", "homebrew", "campaign", "other"];
  for (const [i, code] of codes.entries()) {
    const surface = surfaces[i % surfaces.length];
    equal(successData(await call("report-client-error", report({ code, surface }), { ip })), true);
  }
  for (const release of ["local", "abcdef0", "a".repeat(40)]) {
    equal(successData(await call("report-client-error", report({ release }))), true);
  }
});

test("report-client-error ignores any Authorization header", async () => {
  const res = await call("report-client-error", report(), { token: "not-a-token" });
  equal(successData(res), true);
});

test("report-client-error refuses a missing field, naming it", async () => {
  for (const field of ["code", "surface", "release", "trace_id"]) {
    const body = report();
    delete body[field];
    const res = await call("report-client-error", body);
    equal(failMessage(res), `Missing required field: ${field}`);
    equal(res.body.data.field, field);
  }
});

test("report-client-error refuses an invalid value, naming the field", async () => {
  const cases: [string, unknown][] = [
    ["code", "TypeError: x is undefined"],
    ["code", "SAVE_FAILED"],
    ["code", 3],
    ["surface", "https://example.test/sheet/12"],
    ["surface", null],
    ["release", "v1.2.3"],
    ["release", "ABCDEF0"],
    ["release", "abcdef"],
    ["release", "a".repeat(41)],
    ["release", "local "],
    ["trace_id", "not-a-uuid"],
    ["trace_id", "user@example.test"],
  ];
  for (const [field, value] of cases) {
    const res = await call("report-client-error", report({ [field]: value }));
    match(failMessage(res), new RegExp(`^Invalid value for ${field}: `), `${field}=${value}`);
    equal(res.body.data.field, field);
  }
});

test("report-client-error refuses any field beyond the four", async () => {
  for (const extra of ["message", "stack", "url", "user_id", "email"]) {
    const res = await call("report-client-error", report({ [extra]: "at render (app.js:1:2)" }));
    match(
      failMessage(res),
      new RegExp(`^Unknown field: ${extra}\\. Accepted: code, surface, release, trace_id`),
    );
  }
});

test("report-client-error refuses a body that is not an object", async () => {
  for (const raw of ["[]", '"save_failed"', "null", "42"]) {
    match(failMessage(await call("report-client-error", undefined, { raw })), /^Invalid value for/);
  }
  equal(
    failMessage(await call("report-client-error", undefined, { raw: "{" }), 400),
    "Invalid JSON body",
  );
});

test("report-client-error reads a text/plain body as JSON (navigator.sendBeacon)", async () => {
  const res = await call("report-client-error", undefined, {
    raw: JSON.stringify(report()),
    headers: { "content-type": "text/plain;charset=UTF-8" },
  });
  equal(successData(res), true);
});

test("report-client-error accepts exactly 512 bytes and refuses 513 declared bytes with 413", async () => {
  const base = JSON.stringify(report());
  const at512 = base + " ".repeat(512 - base.length);
  equal(successData(await call("report-client-error", undefined, { raw: at512 })), true);
  const res = await call("report-client-error", undefined, { raw: `${at512} ` });
  equal(res.status, 413);
  equal(res.body.status, "fail");
});

test("report-client-error counts the bytes of a chunked body: 413 past 512", async () => {
  const valid = JSON.stringify(report());
  const under = await postChunked(chunkedBody(valid, 3, 100).stream);
  equal(under.status, 200, "a chunked body within the cap is read");
  equal((await under.json()).data, true);
  const over = await postChunked(chunkedBody(valid, 5, 100).stream);
  equal(over.status, 413, `${valid.length + 500} bytes, valid JSON, no Content-Length`);
  equal((await over.json()).status, "fail");
});

test("report-client-error stops reading an endless chunked body once it passes 512 bytes", async () => {
  const { stream, pulled } = chunkedBody("{", 1_000_000, 64);
  const res = await postChunked(stream);
  equal(res.status, 413);
  await res.body?.cancel();
  // The answer came while the 64 MB body was still being produced: the server stopped reading
  // (what the client pulled sits in socket buffers).
  ok(pulled() < 1_000_000, `the body was not read to its end (pulled ${pulled()} chunks)`);
});

test("report-client-error answers CORS preflight with 204 and the CORS headers", async () => {
  const res = await fetch(url, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example.test",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    },
  });
  await res.body?.cancel();
  equal(res.status, 204);
  equal(res.headers.get("access-control-allow-origin"), "*");
  match(res.headers.get("access-control-allow-methods") ?? "", /POST/);
  match(res.headers.get("access-control-allow-headers") ?? "", /content-type/);
});

test("report-client-error answers 429 with Retry-After once an address spends 30 requests", async () => {
  await withinOneMinute(10_000);
  const ip = randomIp();
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    statuses.push((await call("report-client-error", report(), { ip })).status);
  }
  deepStrictEqual(statuses, Array(30).fill(200));
  const limited = await call("report-client-error", report(), { ip });
  equal(limited.status, 429);
  equal(limited.body.status, "fail");
  ok(Number(limited.headers.get("retry-after")) >= 1);
  equal(limited.headers.get("x-ratelimit-remaining"), "0");
  equal(successData(await call("report-client-error", report())), true, "other addresses go on");
});
