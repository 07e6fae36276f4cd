/**
 * The deployed shape end to end, as a third-party tool and a signed-out visitor meet it: a user's
 * session token creates a character and finds it, creates an API key and grants it the character,
 * the key reads it, and a signed-out supabase-js client (the project's anon or publishable key,
 * sent as supabase-js sends it) finds public content. With TEST_TARGET=hosted this runs against
 * the emulated platform: ES256 tokens, Deno 2.1 instances, the pooler.
 */
import { equal } from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { anonKey, call, makeApiKey, makeUser, server, successData, test } from "./_harness.ts";

test("deployed shape: token → character → find → API key → grant → key reads; signed out finds", async () => {
  const user = await makeUser();
  const created = successData(
    await call("create-character", { name: "Smoke" }, { token: user.access_token }),
  );
  const found = successData(
    await call("find-character", { id: created.id }, { token: user.access_token }),
  );
  equal(found.name, "Smoke");

  const { clientId, apiKey } = await makeApiKey(user);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: user.user_id,
      character_id: created.id,
    }, { token: user.access_token }),
  );
  equal(
    successData(await call("find-character", { id: created.id }, { token: apiKey })).name,
    "Smoke",
  );

  // supabase-js signed out: functions.invoke sends the project's key in `apikey` only.
  const origin = server.functionsUrl.replace(/\/functions\/v1$/, "");
  const visitor = createClient(origin, await anonKey(), {
    auth: { persistSession: false, autoRefreshToken: false },
  });
  const { data, error } = await visitor.functions.invoke("find-spell", {
    body: { id: 1 },
    headers: { "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250) + 1}` },
  });
  equal(error, null);
  equal(data.status, "success");
  equal(data.data.id, 1);
});
