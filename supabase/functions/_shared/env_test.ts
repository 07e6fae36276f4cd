import { deepStrictEqual, equal, throws } from "node:assert/strict";
import { ConfigurationError, readEnv } from "./env.ts";

const key = { kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" };

Deno.test("SUPABASE_JWKS is read as a JWKS document or as the platform's bare array", () => {
  const url = "https://project.supabase.co";
  for (const text of [JSON.stringify({ keys: [key] }), JSON.stringify([key])]) {
    deepStrictEqual(readEnv({ SUPABASE_URL: url, SUPABASE_JWKS: text }).SUPABASE_JWKS, {
      keys: [key],
    });
  }
});

Deno.test("a configuration a function cannot start with is one line naming the variable", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /no way to verify user tokens: .*SUPABASE_URL.*JWT_SECRET/],
    [{ JWT_SECRET: "short" }, /JWT_SECRET must be at least 32 characters/],
    [
      { SUPABASE_URL: "https://p.supabase.co", SUPABASE_PUBLISHABLE_KEYS: "sb_publishable_x" },
      /SUPABASE_PUBLISHABLE_KEYS is not valid JSON/,
    ],
    [
      { SUPABASE_URL: "https://p.supabase.co", SUPABASE_SECRET_KEYS: "[1]" },
      /SUPABASE_SECRET_KEYS is not a JSON object of named keys/,
    ],
    [
      { JWT_SECRET: "x".repeat(32), UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io" },
      /UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together/,
    ],
    // Its password is not repeated: the message says what to do instead.
    [
      {
        SUPABASE_URL: "https://p.supabase.co",
        SUPABASE_DB_URL: "postgres://postgres:pass#Secr3t@db.p.supabase.co:5432/postgres",
      },
      /^Invalid environment: SUPABASE_DB_URL is not a valid URL: percent-encode(?!.*Secr3t)/,
    ],
  ];
  for (const [variables, message] of cases) {
    throws(() => readEnv(variables), (e: unknown) => {
      equal(e instanceof ConfigurationError, true);
      equal((e as Error).message.includes("\n"), false);
      return message.test((e as Error).message);
    });
  }
});

Deno.test("the platform's variables alone are a configuration that starts", () => {
  const env = readEnv({
    SUPABASE_URL: "https://project.supabase.co",
    SUPABASE_DB_URL: "postgres://postgres:pw@db.project.supabase.co:5432/postgres",
    SUPABASE_JWKS: JSON.stringify([key]),
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_abc"}',
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_abc"}',
  });
  equal(env.SUPABASE_PUBLISHABLE_KEYS?.default, "sb_publishable_abc");
});

Deno.test("a DATABASE_URL of one's own is the only database URL checked: the platform's is unused", () => {
  const env = readEnv({
    SUPABASE_URL: "https://project.supabase.co",
    DATABASE_URL: "postgres://postgres.project:p%23w@pooler.supabase.com:6543/postgres",
    SUPABASE_DB_URL: "postgres://postgres:p#w@db.project.supabase.co:5432/postgres",
  });
  equal(env.DATABASE_URL?.includes("%23"), true);
});

Deno.test("no variable a deployer must set starts with the platform's reserved SUPABASE_", async () => {
  const readme = await Deno.readTextFile(new URL("../../../README.md", import.meta.url));
  const command = /supabase secrets set ([^\n`]+)/.exec(readme)?.[1];
  equal(typeof command, "string", "the README's deploy steps set secrets");
  const names = [...command!.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]);
  equal(names.length > 3, true);
  deepStrictEqual(names.filter((name) => name!.startsWith("SUPABASE_")), []);
});

Deno.test("TRUST_PROXY names the header the proxy in front writes the client's address to", () => {
  const url = "https://project.supabase.co";
  const trusted = (value?: string) =>
    readEnv({ SUPABASE_URL: url, ...(value === undefined ? {} : { TRUST_PROXY: value }) })
      .TRUST_PROXY;
  equal(trusted(), false);
  equal(trusted("false"), false);
  equal(trusted("true"), "x-forwarded-for");
  equal(trusted("CF-Connecting-IP"), "cf-connecting-ip");
  throws(() => trusted("x forwarded"), /TRUST_PROXY must be true, false or the name of a header/);
});
