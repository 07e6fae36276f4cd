/**
 * A caller cannot choose the address its per-address budgets are kept under: whatever forwarding
 * headers it sends, the address is the one the platform's proxies (hosted), or the connection
 * (local server as deployed), or a trusted proxy of the deployer's own (local, TRUST_PROXY) saw.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import {
  anonKey,
  call,
  type CallResult,
  failMessage,
  localOnly,
  makeUser,
  randomIp,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { fetchFrom, withinOneMinute } from "./support/http.ts";
import { forwardAs } from "../scripts/hosted/gateway.ts";

/** Every header a client address is commonly read from, each naming `address`. */
function claiming(address: string): Record<string, string> {
  return {
    "x-forwarded-for": address,
    "cf-connecting-ip": address,
    "x-real-ip": address,
    "true-client-ip": address,
    "forwarded": `for=${address}`,
  };
}

/** A signed-out call (the project's key) from `ip` with extra headers. */
async function asVisitor(ip: string, headers: Record<string, string>): Promise<CallResult> {
  const key = await anonKey();
  return await call("find-spell", { id: 1 }, {
    token: key,
    ip,
    headers: { apikey: key, ...headers },
  });
}

test("a caller naming a new address in every forwarding header is still held to its own address's 30", async () => {
  await withinOneMinute(15_000);
  const caller = randomIp();
  const statuses: number[] = [];
  for (let i = 0; i < 35; i++) {
    statuses.push((await asVisitor(caller, claiming(randomIp()))).status);
  }
  deepStrictEqual(statuses, [...Array(30).fill(200), ...Array(5).fill(429)]);
});

test("forwarding headers naming a victim's address spend none of the victim's budget", async () => {
  await withinOneMinute(15_000);
  const victim = randomIp();
  const attacker = randomIp();
  for (let i = 0; i < 31; i++) await asVisitor(attacker, claiming(victim));
  const own = await asVisitor(victim, {});
  equal(successData(own).id, 1);
  equal(own.headers.get("x-ratelimit-remaining"), "29");
});

async function lockedSource(): Promise<number> {
  const owner = await makeUser({ tier: 2 });
  return successData(
    await call("create-content-source", {
      name: `Source ${crypto.randomUUID()}`,
      is_published: true,
      require_key: true,
      keys: { access_key: "correct-horse-battery" },
    }, { token: owner.access_token }),
  ).id as number;
}

async function guess(account: TestUser, id: number, ip: string, headers: Record<string, string>) {
  return failMessage(
    await call("unlock-content-source", { id, access_key: `guess-${crypto.randomUUID()}` }, {
      token: account.access_token,
      ip,
      headers,
    }),
  );
}

test("wrong access keys from one address are throttled however the caller names its address", async () => {
  const locked = await lockedSource();
  const address = randomIp();
  for (let i = 0; i < 5; i++) {
    equal(
      await guess(await makeUser(), locked, address, claiming(randomIp())),
      "Invalid access key",
    );
  }
  equal(
    await guess(await makeUser(), locked, address, claiming(randomIp())),
    "Too many wrong access keys for this content source: try again in 15 minutes",
  );
});

localOnly(
  "behind a proxy of its own (TRUST_PROXY=true) the local server takes the address that proxy appended",
  async () => {
    // The in-process server reads its configuration from this module instance on every request.
    const { env } = await import("../supabase/functions/_shared/env.ts");
    const saved = env.TRUST_PROXY;
    env.TRUST_PROXY = "x-forwarded-for";
    // The proxy: on one address, it passes on what its clients send and appends their address.
    const proxy = randomIp();
    const through = async (client: string, sent: Record<string, string>) => {
      const headers = new Headers({ "content-type": "application/json", ...sent });
      const key = await anonKey();
      headers.set("authorization", `Bearer ${key}`);
      forwardAs(headers, client);
      const res = await fetchFrom(proxy)(`${server.functionsUrl}/find-spell`, {
        method: "POST",
        headers,
        body: JSON.stringify({ id: 1 }),
      });
      await res.body?.cancel();
      return res;
    };
    try {
      await withinOneMinute(15_000);
      const caller = randomIp();
      const victim = randomIp();
      const statuses: number[] = [];
      for (let i = 0; i < 35; i++) statuses.push((await through(caller, claiming(victim))).status);
      deepStrictEqual(statuses, [...Array(30).fill(200), ...Array(5).fill(429)]);
      const own = await through(victim, {});
      equal(own.status, 200);
      equal(own.headers.get("x-ratelimit-remaining"), "29");
    } finally {
      env.TRUST_PROXY = saved;
    }
  },
);
