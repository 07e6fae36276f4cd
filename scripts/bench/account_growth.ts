/**
 * The most one account can make the hosted project keep in a day, measured: on the emulated hosted
 * project, one paid account sends every kind of growing write it can until each bound refuses it
 * (keyed updates of 800 KB, proposals of 250 KB, characters of 900 KB), and the bytes kept for it
 * are then read from the database: rows' JSON text, and the tables' on-disk size before and after.
 *
 *   deno task bench:account-growth
 */
import postgres from "postgres";
import { startHostedEmulation } from "../hosted/emulation.ts";

const emulation = await startHostedEmulation({
  redisUrl: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
});
const owner = postgres(emulation.ownerUrl, { max: 1, onnotice: () => {} });
const MB = 1024 * 1024;

/** Random text that does not compress. */
function randomText(bytes: number): string {
  const raw = new Uint8Array(Math.ceil(bytes / 2));
  for (let at = 0; at < raw.length; at += 65_536) {
    crypto.getRandomValues(raw.subarray(at, at + 65_536));
  }
  return Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, bytes);
}

async function post(fn: string, token: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${emulation.functionsUrl}/${fn}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { status: string; data?: { id: number }; message?: string };
}

/** Sends `write(i)` until it is refused (or `max` times); answers how many were taken. */
async function untilRefused(max: number, write: (i: number) => Promise<{ status: string }>) {
  let taken = 0;
  for (let i = 0; i < max; i++) {
    if ((await write(i)).status !== "success") break;
    taken++;
  }
  return taken;
}

async function diskBytes(): Promise<number> {
  const [row] = await owner<{ bytes: number }[]>`
    select sum(pg_total_relation_size(c.oid))::float8 as bytes from pg_class c
    where c.oid in ('private.idempotent_request'::regclass, 'public.content_update'::regclass,
      'public.character'::regclass)`;
  return row!.bytes;
}

try {
  const { userId, token } = await emulation.signUp(`growth-${crypto.randomUUID()}@example.test`, 2);
  const diskBefore = await diskBytes();
  const [source] = await owner<{ id: number }[]>`
    insert into public.content_source (name, is_published) values ('Growth', true) returning id`;
  const first = await post("create-character", token, { name: "Keyed" }, {});
  const notes = randomText(800 * 1024);
  const keyed = await untilRefused(
    100,
    (i) =>
      post("update-character", token, { id: first.data!.id, notes: { text: `${i} ${notes}` } }, {
        "Idempotency-Key": crypto.randomUUID(),
      }),
  );
  const proposals = await untilRefused(100, () =>
    post("create-content-update", token, {
      type: "spell",
      action: "CREATE",
      content_source_id: source!.id,
      data: { name: "Proposed", rank: 1, meta_data: { notes: randomText(250 * 1024) } },
    }, {}));
  const big = randomText(900 * 1024);
  const characters = await untilRefused(
    200,
    (i) => post("create-character", token, { name: `Hoard ${i}`, notes: { text: big } }, {}),
  );
  const [kept] = await owner<{ answers: number; proposals: number; characters: number }[]>`
    select
      (select coalesce(sum(octet_length(answer::text)), 0) from private.idempotent_request
        where scope = ${`user:${userId}`})::float8 as answers,
      (select coalesce(sum(octet_length(data::text)), 0) from public.content_update
        where user_id = ${userId})::float8 as proposals,
      (select coalesce(sum(octet_length(to_jsonb(c)::text)), 0) from public.character c
        where c.user_id = ${userId})::float8 as characters`;
  const total = kept!.answers + kept!.proposals + kept!.characters;
  console.log(`keyed updates taken: ${keyed}, kept answers ${(kept!.answers / MB).toFixed(1)} MB`);
  console.log(`proposals taken: ${proposals}, kept ${(kept!.proposals / MB).toFixed(1)} MB`);
  console.log(
    `characters of 900 KB taken: ${characters + 1}, kept ${(kept!.characters / MB).toFixed(1)} MB`,
  );
  console.log(`one account's day, as JSON text: ${(total / MB).toFixed(1)} MB`);
  console.log(
    `on disk (tables, TOAST, indexes): +${((await diskBytes() - diskBefore) / MB).toFixed(1)} MB`,
  );
} finally {
  await owner.end();
  await emulation.close();
}
