/**
 * The local-development switch: the sign-in stand-in (any password signs in) and the secrets
 * published in .env.example exist only while LOCAL_DEVELOPMENT is on. A server started as it would
 * be deployed refuses the example secrets, never falls back to them, and mounts no stand-in.
 */
import { equal, match, ok, rejects } from "node:assert/strict";
import { SignJWT } from "jose";
import { PUBLISHED_EXAMPLE_SECRETS } from "../supabase/functions/_shared/env.ts";
import { post, randomIp } from "./support/http.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { realPostgresUrl, testDatabase } from "./support/test_database.ts";
import { test } from "./_harness.ts";

const OWN_SECRET = `deployed-secret-${crypto.randomUUID()}`;
const OWN_MODERATION_SECRET = `moderation-${crypto.randomUUID()}`;
const kind = realPostgresUrl() ? "postgres" : "embedded";

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
      ServerProcess.start({ ...database.env, LOCAL_DEVELOPMENT: "0" }),
      /Invalid environment: no way to verify user tokens/,
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
