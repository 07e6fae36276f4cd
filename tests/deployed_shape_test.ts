/**
 * The deployed shape end to end, as a third-party tool and a signed-out visitor meet it: a user's
 * session token creates a character and finds it, creates an API key and grants it the character,
 * the key reads it, and a signed-out supabase-js client (the project's anon or publishable key,
 * sent as supabase-js sends it) finds public content. With TEST_TARGET=hosted this runs against
 * the emulated platform: ES256 tokens, Deno 2.1 instances, the pooler.
 */
import { equal } from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { SignJWT } from "jose";
import {
  anonKey,
  call,
  failMessage,
  fetchFrom,
  hosted,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  successData,
  test,
} from "./_harness.ts";

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
    global: { fetch: fetchFrom(randomIp()) },
  });
  const { data, error } = await visitor.functions.invoke("find-spell", { body: { id: 1 } });
  equal(error, null);
  equal(data.status, "success");
  equal(data.data.id, 1);
});

test("the project's keys: a made-up publishable key and any secret key are refused as bearers", async () => {
  const madeUp = `sb_publishable_${crypto.randomUUID().replaceAll("-", "").slice(0, 22)}`;
  equal(
    failMessage(await call("find-spell", { id: 1 }, { headers: { apikey: madeUp } }), 401),
    "Invalid token: this publishable key is not one of this project's keys",
  );
  const secret = `sb_secret_${crypto.randomUUID().replaceAll("-", "")}`;
  equal(
    failMessage(await call("find-spell", { id: 1 }, { token: secret }), 401),
    "Invalid token: a project secret key is not accepted; sign in or send an API key",
  );
  // The real publishable key as the bearer, as supabase-js sends it to the database and Storage.
  equal(successData(await call("find-spell", { id: 1 }, { token: await anonKey() })).id, 1);
});

test("a session signed with the legacy HS256 secret still works where the project has one", async () => {
  const user = await makeUser();
  const now = Math.floor(Date.now() / 1000);
  const issuer = hosted ? `${hosted.projectUrl}/auth/v1` : undefined;
  const token = await new SignJWT({
    ...(issuer ? { iss: issuer } : {}),
    sub: user.user_id,
    role: "authenticated",
    aud: "authenticated",
    iat: now,
    exp: now + 600,
  }).setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode(Deno.env.get("JWT_SECRET")!));
  equal(successData(await call("find-api-client", {}, { token })).length, 0);
});

test("the pages build into a static folder that points at the project and holds what it links", async () => {
  const { buildPages } = await import("../scripts/tools/build_pages.ts");
  const out = await Deno.makeTempDir({ prefix: "rpgpages-" });
  try {
    const projectUrl = server.functionsUrl.replace(/\/functions\/v1$/, "");
    const files = await buildPages({ projectUrl, publishableKey: await anonKey(), out });
    const config = JSON.parse(await Deno.readTextFile(`${out}/app-config.json`));
    equal(config.supabaseUrl, projectUrl);
    equal(config.supabaseAnonKey, await anonKey());
    equal(config.localAccounts, false);
    for (const page of files.filter((f) => f.endsWith(".html"))) {
      const html = await Deno.readTextFile(`${out}/${page}`);
      equal(html.includes("<!-- site-header -->"), false, `${page} has its header in place`);
      for (const [, link] of html.matchAll(/(?:src|href)="(\/[^"#?]+)"/g)) {
        const target = link!.endsWith("/") ? `${link}index.html` : link!;
        const exists = files.includes(target.slice(1)) ||
          files.includes(`${target.slice(1)}/index.html`);
        equal(exists, true, `${page} links ${link}, which the folder holds`);
      }
    }
    equal(files.includes("openapi.json"), true);
    equal(files.includes("_headers"), true);

    // Served as a plain static host serves a folder: the consent page and its configuration load.
    const host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      const path = new URL(req.url).pathname;
      const file = path.endsWith("/") ? `${path}index.html` : path;
      try {
        return new Response(await Deno.readFile(`${out}${file}`));
      } catch {
        return new Response("not found", { status: 404 });
      }
    });
    try {
      const origin = `http://127.0.0.1:${host.addr.port}`;
      const consent = await fetch(`${origin}/oauth/access/`);
      equal(consent.status, 200);
      equal((await consent.text()).includes("<script"), true);
      const served = await (await fetch(`${origin}/app-config.json`)).json();
      equal(served.supabaseUrl, projectUrl);
      // The API reference page, and the Swagger UI it loads from the folder itself (no CDN).
      const reference = await (await fetch(`${origin}/reference/`)).text();
      equal(reference.includes("/assets/vendor/swagger-ui/swagger-ui-bundle.js"), true);
      const bundle = await fetch(`${origin}/assets/vendor/swagger-ui/swagger-ui-bundle.js`);
      await bundle.body?.cancel();
      equal(bundle.status, 200);
    } finally {
      await host.shutdown();
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
