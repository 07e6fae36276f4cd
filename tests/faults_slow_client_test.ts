/**
 * Fault: clients that start an upload and stall. Each holds a socket and what it sent so far, so
 * the server must give up on them instead of waiting forever.
 */
import { equal, ok } from "node:assert/strict";
import { call, makeUser, server, test } from "./_harness.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { defaultTestDatabase } from "./support/test_database.ts";

const STALLED = 200;
/** The body deadline (BODY_TIMEOUT_MS in read_body.ts) and a margin. */
const GIVE_UP_MS = 10_000 + 10_000;

/** Sends headers promising a body, a few bytes of it, then nothing; returns what comes back. */
async function stalledUpload(port: number, token: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), GIVE_UP_MS);
  try {
    const head = `POST /functions/v1/create-character HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: 100\r\n\r\n{"name":`;
    await conn.write(new TextEncoder().encode(head));
    const buffer = new Uint8Array(4096);
    let answer = "";
    while (!answer.includes("\r\n\r\n")) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      answer += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return answer;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
}

test("stalled uploads: each is answered 400 and closed after the body deadline", async () => {
  const user = await makeUser({ tier: 4 });
  const port = Number(new URL(server.functionsUrl).port);
  const answers = await Promise.all(
    Array.from({ length: STALLED }, () => stalledUpload(port, user.access_token)),
  );
  const unanswered = answers.filter((a) => a === "").length;
  equal(unanswered, 0, `${unanswered} of ${STALLED} stalled uploads were never answered`);
  for (const answer of answers) {
    ok(answer.startsWith("HTTP/1.1 400"), answer.slice(0, 200));
  }
  const after = await call("find-character", {}, { token: user.access_token });
  equal(after.body.status, "success", "the server still serves others");
});

Deno.test({
  name: "open files: the server raises its soft limit to the hard limit at start",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const database = await defaultTestDatabase();
    const child = await ServerProcess.start({ ...database.env, LOG_LEVEL: "silent" }, {
      openFiles: [256, 4096],
    });
    try {
      const limits = await Deno.readTextFile(`/proc/${child.pid}/limits`);
      const match = /^Max open files\s+(\d+)\s+(\d+)/m.exec(limits);
      equal(match?.[1], "4096", limits);
      ok(/Open files: up to 4096 \(hard limit 4096\)/.test(child.output), child.output);
    } finally {
      await child.stop();
      await database.cleanup();
    }
  },
});
