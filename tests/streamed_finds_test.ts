/**
 * Finds without `id` answer every row, streamed while the request's transaction reads them batch
 * by batch: what a client sees when it reads all of it, leaves half-way, or the database goes away
 * under it; and that the connection a stream holds always comes back.
 */
import { equal, ok, rejects } from "node:assert/strict";
import {
  adminSql,
  call,
  fetchFrom,
  localServer,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

/** Rows of about 8 kB each: a body (about 24 MB) far larger than what the sockets buffer. */
const ROWS = 3_000;

async function bigSource(): Promise<{ user: TestUser; token: string; sourceId: number }> {
  const user = await makeUser({ tier: 2 });
  const source = successData(
    await call("create-content-source", { name: `Stream ${crypto.randomUUID()}` }, {
      token: user.access_token,
    }),
  );
  // In parts: each statement stays well inside the pool's 5 s statement timeout on a busy machine.
  for (let from = 1; from <= ROWS; from += 500) {
    await adminSql`insert into public.trait (name, description, content_source_id)
      select 'Row ' || lpad(n::text, 5, '0'), repeat('x', 8000), ${source.id}
      from generate_series(${from}::int, ${Math.min(from + 499, ROWS)}::int) n`;
  }
  return { user, token: user.access_token, sourceId: source.id };
}

/** Starts a find-trait over the source and returns its response with the body unread. */
function startFind(token: string, sourceId: number): Promise<Response> {
  return fetchFrom(randomIp())(`${server.functionsUrl}/find-trait`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content_sources: [sourceId] }),
  });
}

let prepared: ReturnType<typeof bigSource> | null = null;
const big = () => (prepared ??= bigSource());

test("streamed find: a client that reads it all gets every row in one JSend envelope", async () => {
  const { token, sourceId } = await big();
  const res = await startFind(token, sourceId);
  equal(res.status, 200);
  ok(res.headers.get("x-request-id"));
  ok(res.headers.get("x-ratelimit-limit"));
  const body = JSON.parse(await res.text());
  equal(body.status, "success");
  equal(body.data.length, ROWS);
  equal(body.data[0].name, "Row 00001");
  equal(body.data[ROWS - 1].name, `Row ${String(ROWS).padStart(5, "0")}`);
});

test("streamed find: clients that leave mid-body give their connections back", async () => {
  const { token, sourceId } = await big();
  // More abandoned streams than the pool has connections: one still held would starve the rest.
  const pool = Number(Deno.env.get("DATABASE_POOL_SIZE") ?? 10);
  for (let i = 0; i <= pool; i++) {
    const res = await startFind(token, sourceId);
    equal(res.status, 200, `stream ${i}`);
    const reader = res.body!.getReader();
    ok(!(await reader.read()).done);
    // Leaves once the server has stopped reading ahead for it (its buffers full), or before.
    await new Promise((resolve) => setTimeout(resolve, i % 2 === 0 ? 300 : 0));
    await reader.cancel();
  }
  const after = await call("find-trait", { content_sources: [sourceId], name: "Row 00002" }, {
    token,
  });
  equal(successData(after).length, 1);
});

// The embedded database has no other session to end this one from.
if (localServer!.database.kind === "postgres") {
  test("streamed find: a database connection lost mid-body aborts the body", async () => {
    const { token, sourceId } = await big();
    const res = await startFind(token, sourceId);
    equal(res.status, 200);
    const reader = res.body!.getReader();
    ok(!(await reader.read()).done);
    // The stream waits for the client, its transaction idle between two fetches of its cursor.
    let killed = 0;
    while (killed === 0) {
      const [row] = await adminSql<{ killed: number }[]>`
        select count(*)::int as killed from (
          select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and query like 'fetch forward %find_rows') t`;
      killed = row?.killed ?? 0;
    }
    await rejects(async () => {
      while (!(await reader.read()).done) {
        // drains what was sent before the loss; the body must then fail, not end
      }
    });
    const after = await call("find-trait", { content_sources: [sourceId], name: "Row 00003" }, {
      token,
    });
    equal(successData(after).length, 1);
  });
}

test("streamed find: a row past the first batch that fails the result schema aborts the body", async () => {
  const user = await makeUser({ tier: 2 });
  const source = successData(
    await call("create-content-source", { name: `Stream ${crypto.randomUUID()}` }, {
      token: user.access_token,
    }),
  );
  // Written behind the API's back: longer than the 100,000 characters a description may have.
  await adminSql`insert into public.trait (name, description, content_source_id)
    select 'Row ' || lpad(n::text, 5, '0'), repeat('x', case when n = 1500 then 100001 else 10 end),
      ${source.id}
    from generate_series(1, 2000) n`;
  const res = await startFind(user.access_token, source.id);
  equal(res.status, 200);
  await rejects(res.text());
  const after = await call("find-trait", { content_sources: [source.id], name: "Row 00001" }, {
    token: user.access_token,
  });
  equal(successData(after).length, 1);
});

test("streamed find: an API key streams the same rows as its owner's token", async () => {
  const { user, sourceId } = await big();
  const { apiKey } = await makeApiKey(user);
  const res = await startFind(apiKey, sourceId);
  const body = JSON.parse(await res.text());
  equal(body.data.length, ROWS);
});

test("streamed find: lists that end exactly at a batch's edge are whole and well formed", async () => {
  const user = await makeUser({ tier: 2 });
  for (const count of [499, 500, 501, 2_500]) {
    const source = successData(
      await call("create-content-source", { name: `Edge ${crypto.randomUUID()}` }, {
        token: user.access_token,
      }),
    );
    await adminSql`insert into public.trait (name, content_source_id)
      select 'Edge ' || lpad(n::text, 5, '0'), ${source.id} from generate_series(1, ${count}::int) n`;
    const found = successData(
      await call("find-trait", { content_sources: [source.id] }, { token: user.access_token }),
    );
    equal(found.length, count);
    equal(found[count - 1].name, `Edge ${String(count).padStart(5, "0")}`);
  }
});
