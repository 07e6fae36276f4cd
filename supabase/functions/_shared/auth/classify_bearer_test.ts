import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { bearerHeader, classifyBearer, constantTimeEqual, isOneOf } from "./classify_bearer.ts";

const secret = "s".repeat(40);
const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";

Deno.test("classifyBearer() treats a missing or blank header as none", () => {
  assertEquals(classifyBearer(null), { kind: "none" });
  assertEquals(classifyBearer("   "), { kind: "none" });
});

Deno.test("classifyBearer() treats a header without the Bearer scheme as malformed", () => {
  assertEquals(classifyBearer("Basic abc"), { kind: "malformed" });
  assertEquals(classifyBearer("Bearer"), { kind: "malformed" });
  assertEquals(classifyBearer("Bearer a b"), { kind: "malformed" });
});

Deno.test("classifyBearer() treats a 36-character token as an API key", () => {
  const key = crypto.randomUUID();
  assertEquals(classifyBearer(`Bearer ${key}`), { kind: "api_key", token: key });
  assertEquals(classifyBearer(`bearer ${"x".repeat(36)}`).kind, "api_key");
});

Deno.test("classifyBearer() treats a three-part token of another length as a JWT", () => {
  assertEquals(classifyBearer(`Bearer ${jwt}`), { kind: "jwt", token: jwt });
});

Deno.test("classifyBearer() treats a token that is neither as malformed", () => {
  assertEquals(classifyBearer("Bearer short"), { kind: "malformed" });
  assertEquals(classifyBearer(`Bearer ${"x".repeat(35)}`), { kind: "malformed" });
});

Deno.test("classifyBearer() recognises the service secret before any other shape", () => {
  assertEquals(classifyBearer(`Bearer ${secret}`, secret), { kind: "service", token: secret });
  assertEquals(classifyBearer(`Bearer ${secret}x`, secret).kind, "malformed");
  assertEquals(classifyBearer(`Bearer ${jwt}`, secret).kind, "jwt");
});

Deno.test("constantTimeEqual() is true only for identical strings", () => {
  assertEquals(constantTimeEqual("abc", "abc"), true);
  assertEquals(constantTimeEqual("abc", "abd"), false);
  assertEquals(constantTimeEqual("abc", "abcd"), false);
  assertEquals(constantTimeEqual("", ""), true);
});

Deno.test("classifyBearer() tells the platform's key shapes from API keys and JWTs", () => {
  // 36 characters, as long as an API key: the prefix decides.
  const publishable = `sb_publishable_${"a".repeat(21)}`;
  assertEquals(classifyBearer(`Bearer ${publishable}`), {
    kind: "publishable",
    token: publishable,
  });
  assertEquals(classifyBearer(`Bearer sb_secret_${"b".repeat(26)}`), { kind: "secret_key" });
});

Deno.test("bearerHeader() falls back to the apikey header only without Authorization", () => {
  assertEquals(bearerHeader(new Headers({ apikey: "k" })), "ApiKey k");
  assertEquals(bearerHeader(new Headers({ apikey: "k", authorization: "Bearer t" })), "Bearer t");
  assertEquals(bearerHeader(new Headers({ apikey: " " })), null);
  assertEquals(bearerHeader(new Headers()), null);
});

Deno.test("classifyBearer() takes only a project key from the apikey header", () => {
  const publishable = `sb_publishable_${"a".repeat(21)}`;
  assertEquals(classifyBearer(`ApiKey ${publishable}`), {
    kind: "publishable",
    token: publishable,
  });
  assertEquals(classifyBearer("ApiKey a.b.c"), {
    kind: "jwt",
    token: "a.b.c",
    projectKeyOnly: true,
  });
  assertEquals(classifyBearer(`ApiKey ${"k".repeat(36)}`), { kind: "misplaced" });
  assertEquals(classifyBearer("ApiKey the-service-secret", "the-service-secret"), {
    kind: "misplaced",
  });
});

Deno.test("isOneOf() finds a key among several", () => {
  assertEquals(isOneOf("b", ["a", "b"]), true);
  assertEquals(isOneOf("c", ["a", "b"]), false);
  assertEquals(isOneOf("a", []), false);
});
