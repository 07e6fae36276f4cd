/**
 * The local-development switch: the sign-in stand-in (any password signs in) and the secrets
 * published in .env.example exist only while LOCAL_DEVELOPMENT is on. A server started as it would
 * be deployed refuses the example secrets, never falls back to them, and mounts no stand-in.
 */
import { equal, match, ok, rejects } from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { PUBLISHED_EXAMPLE_SECRETS } from "../supabase/functions/_shared/env.ts";
import { post, randomIp } from "./support/http.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { realPostgresUrl, testDatabase } from "./support/test_database.ts";
import { test } from "./_harness.ts";

const OWN_SECRET = `deployed-secret-${crypto.randomUUID()}`;
const OWN_MODERATION_SECRET = `moderation-${crypto.randomUUID()}`;
const kind = realPostgresUrl() ? "postgres" : "embedded";
/** Without the run's secrets, which a test server is otherwise given. */
const NO_SECRETS = { JWT_SECRET: "unset", CONTENT_UPDATE_SECRET: "unset", API_KEY_SECRET: "unset" };

test(".env.example publishes exactly the secrets the server refuses outside local development", async () => {
  const text = await Deno.readTextFile(new URL("../.env.example", import.meta.url));
  for (const [name, value] of Object.entries(PUBLISHED_EXAMPLE_SECRETS)) {
    ok(text.includes(`\n${name}=${value}\n`), `${name} in .env.example is not the listed value`);
  }
});

test("a deployed start refuses the published example JWT secret", async () => {
  const database = await testDatabase(kind);
  try {
    await rejects(
      ServerProcess.start({
        ...database.env,
        LOCAL_DEVELOPMENT: "0",
        JWT_SECRET: PUBLISHED_EXAMPLE_SECRETS.JWT_SECRET ?? "",
        CONTENT_UPDATE_SECRET: OWN_MODERATION_SECRET,
      }),
      /JWT_SECRET is the published example value/,
    );
  } finally {
    await database.cleanup();
  }
});

test("a deployed start without secrets stops instead of using the example ones", async () => {
  const database = await testDatabase(kind);
  try {
    await rejects(
      ServerProcess.start({ ...database.env, ...NO_SECRETS, LOCAL_DEVELOPMENT: "0" }),
      (e: Error) => {
        match(e.message, /Invalid environment: no way to verify user tokens/);
        // One readable line: no stack trace.
        equal(/^\s+at /m.test(e.message), false, e.message);
        return true;
      },
    );
  } finally {
    await database.cleanup();
  }
});

test("a deployed start mounts no sign-in stand-in, and example-signed tokens are refused", async () => {
  const database = await testDatabase(kind);
  const server = await ServerProcess.start({
    ...database.env,
    LOCAL_DEVELOPMENT: "0",
    JWT_SECRET: OWN_SECRET,
    CONTENT_UPDATE_SECRET: OWN_MODERATION_SECRET,
  });
  try {
    ok(!server.output.includes("Local development mode"), "the server says it is in local mode");
    const origin = new URL(server.functionsUrl).origin;
    const signIn = await fetch(`${origin}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "anyone@example.com", password: "anything" }),
    });
    await signIn.body?.cancel();
    equal(signIn.status, 404);
    const accounts = await fetch(`${origin}/auth/v1/local-accounts`);
    await accounts.body?.cancel();
    equal(accounts.status, 404);
    // The sign-in page is not told to offer the local accounts that are not there.
    const config = await (await fetch(`${origin}/app-config.json`)).json();
    equal(config.localAccounts, false);

    const forged = await new SignJWT({ role: "authenticated", aud: "authenticated" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(PUBLISHED_EXAMPLE_SECRETS.JWT_SECRET));
    const answer = await post(server.functionsUrl, "find-character", {}, {
      token: forged,
      ip: randomIp(),
    });
    equal(answer.status, 401);
    match(JSON.stringify(answer.body), /Invalid token/);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await database.cleanup();
  }
});

test("deno task start on the embedded default says it runs in local development mode", async () => {
  const database = await testDatabase("embedded");
  const server = await ServerProcess.start({
    DATA_DIR: database.env.DATA_DIR ?? "",
    ...NO_SECRETS,
    LOCAL_DEVELOPMENT: "unset",
  });
  try {
    match(server.output, /Local development mode \(LOCAL_DEVELOPMENT=1\)/);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await database.cleanup();
  }
});

Deno.test({
  name: "deno task start given only what the platform gives a function serves the same API",
  ignore: kind !== "postgres",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const database = await testDatabase("postgres");
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: "project-key", alg: "ES256" };
  // A key the platform's list holds but that cannot be imported: the deployment's fault.
  const broken = { ...jwk, kid: "broken-key", x: undefined };
  const projectUrl = "https://project-ref.supabase.co";
  const publishable = `sb_publishable_${crypto.randomUUID().replaceAll("-", "").slice(0, 22)}`;
  const server = await ServerProcess.start({
    SUPABASE_DB_URL: database.env.DATABASE_URL!,
    SUPABASE_URL: projectUrl,
    SUPABASE_JWKS: JSON.stringify([jwk, broken]),
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: publishable }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: "sb_secret_not-used-here" }),
    ...NO_SECRETS,
    CONTENT_UPDATE_SECRET: OWN_MODERATION_SECRET,
    LOCAL_DEVELOPMENT: "unset",
  });
  try {
    ok(!server.output.includes("Local development mode"), "the start is not local development");
    const signedOut = await post(server.functionsUrl, "find-spell", { id: 1 }, {
      ip: randomIp(),
      headers: { apikey: publishable },
    });
    equal(signedOut.body.status, "success");
    const sql = await database.connect();
    const [user] = await sql<{ id: string }[]>`
      insert into auth.users (id, email) values (gen_random_uuid(), 'platform@example.test')
      returning id::text as id`;
    await sql.end();
    const token = await new SignJWT({
      iss: `${projectUrl}/auth/v1`,
      sub: user!.id,
      role: "authenticated",
      aud: "authenticated",
    }).setProtectedHeader({ alg: "ES256", typ: "JWT", kid: "project-key" })
      .setIssuedAt().setExpirationTime("1h").sign(privateKey);
    const mine = await post(server.functionsUrl, "find-api-client", {}, {
      token,
      ip: randomIp(),
    });
    equal(mine.body.status, "success");
    const unverifiable = await new SignJWT({ sub: user!.id, role: "authenticated" })
      .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: "broken-key" })
      .setIssuedAt().setExpirationTime("1h").sign(privateKey);
    const refused = await post(server.functionsUrl, "find-api-client", {}, {
      token: unverifiable,
      ip: randomIp(),
    });
    equal(refused.status, 503, JSON.stringify(refused.body));
    match(server.output, /"signing_key_unusable","kid":"broken-key"/);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await database.cleanup();
  }
});

test("a start whose database URL does not parse says so in one line, without its password", async () => {
  await rejects(
    ServerProcess.start({ DATABASE_URL: "postgres://postgres:Pass#Word@127.0.0.1:5432/postgres" }),
    (e: Error) => {
      match(e.message, /Invalid environment: DATABASE_URL is not a valid URL: percent-encode/);
      equal(e.message.includes("Word"), false, e.message);
      equal(/^\s+at /m.test(e.message), false, e.message);
      return true;
    },
  );
});

for (
  const [setting, env, reason] of [
    [
      "a port that is not a number",
      { PORT: " " },
      /PORT must be a whole number from 0 to 65535/,
    ],
    ["no connections", { MAX_CONNECTIONS: "0" }, /MAX_CONNECTIONS must be a whole number from 1/],
    ["workers that are not a number", { WORKERS: "two" }, /WORKERS must be a whole number from 1/],
    [
      "a database that refuses the connection",
      { DATABASE_URL: "postgres://postgres:Secret1@127.0.0.1:1/postgres" },
      /^Cannot reach the database at DATABASE_URL: .*ECONNREFUSED/m,
    ],
    [
      "a data folder that is a file",
      { DATABASE_URL: "unset", DATA_DIR: "deno.json" },
      /^Cannot open the embedded database in DATA_DIR: .*deno\.json/m,
    ],
  ] as const
) {
  test(`a start with ${setting} says why in one line`, async () => {
    await rejects(ServerProcess.start({ ...env }), (e: Error) => {
      match(e.message, reason);
      equal(e.message.includes("Secret1"), false, e.message);
      equal(/^\s+at /m.test(e.message), false, e.message);
      return true;
    });
  });
}
