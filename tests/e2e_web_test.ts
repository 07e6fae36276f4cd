/**
 * The web app end to end, in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core): sign-in, developer settings, the consent screen and a character's authorized
 * clients, checked against what the API then allows. Screenshots of every page go to
 * test-artifacts/screenshots/ for a person to look at.
 *
 * The pages sign in through the local sign-in stand-in, which a server has only in local
 * development: these tests run on a server of their own started as `deno task start` runs on a
 * developer's machine (LOCAL_DEVELOPMENT=1), not on the harness's, which runs as deployed.
 *
 * Without /usr/bin/chromium the browser tests fail (install it with scripts/install_chromium.sh)
 * unless SKIP_BROWSER_TESTS=1. The tests of the local sign-in stand-in and of the page route need
 * no browser and always run.
 */
import { equal, match, ok } from "node:assert/strict";
import type postgres from "postgres";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { createClient } from "@supabase/supabase-js";
import {
  callAt,
  type CallOptions,
  type CallResult,
  failMessage,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { createAccount } from "../scripts/support/accounts.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { defaultTestDatabase } from "./support/test_database.ts";

const CHROMIUM = "/usr/bin/chromium";
const SKIP_BROWSER = Deno.env.get("SKIP_BROWSER_TESTS") === "1";
const SCREENSHOTS = new URL("../test-artifacts/screenshots/", import.meta.url);
const NO_ACCESS = "You do not have access to this character";

/** A server in local development, with what a test does on it. */
interface LocalDevelopment {
  /** The origin of its pages, its functions and its sign-in stand-in. */
  appUrl: string;
  call(fn: string, body?: unknown, options?: CallOptions): Promise<CallResult>;
  /** Creates an account directly in its database, with a one-hour access token. */
  makeUser(options?: { tier?: number }): Promise<TestUser>;
  /** The database owner's connection to its database. */
  sql: postgres.Sql;
}

/** Runs `fn` on a fresh server in local development (on a database of its own), then stops it. */
async function withLocalDevelopment(fn: (local: LocalDevelopment) => Promise<void>): Promise<void> {
  const database = await defaultTestDatabase();
  let started: ServerProcess | null = null;
  let sql: postgres.Sql | null = null;
  try {
    started = await ServerProcess.start({ ...database.env, LOCAL_DEVELOPMENT: "1" });
    const owner = sql = await database.connect();
    const functionsUrl = started.functionsUrl;
    await fn({
      appUrl: new URL(functionsUrl).origin,
      call: (name, body, options) => callAt(functionsUrl, name, body, options),
      async makeUser(options = {}) {
        const account = await createAccount(owner, options.tier ?? 0);
        return { user_id: account.user_id, email: account.email, access_token: account.token };
      },
      sql: owner,
    });
  } finally {
    await sql?.end();
    if (started) {
      started.kill("SIGTERM");
      await started.status;
    }
    await database.cleanup();
  }
}

/** Registers a test that needs the browser: ignored (and said so) when SKIP_BROWSER_TESTS=1. */
function browserTest(
  name: string,
  fn: (browser: Browser, local: LocalDevelopment) => Promise<void>,
): void {
  if (SKIP_BROWSER) {
    Deno.test({ name: `${name} (skipped: SKIP_BROWSER_TESTS=1)`, ignore: true, fn: () => {} });
    return;
  }
  test(name, async () => {
    const browser = await launchChromium();
    try {
      await withLocalDevelopment((local) => fn(browser, local));
    } catch (e) {
      // What each open page showed when the test failed, for the person reading the failure.
      const pages = browser.contexts().flatMap((c) => c.pages());
      for (const [i, page] of pages.entries()) {
        await screenshot(page, `failed-${name.replace(/[^a-z0-9]+/gi, "-")}-${i}`).catch(() => {});
      }
      throw e;
    } finally {
      await browser.close();
    }
  });
}

async function launchChromium(): Promise<Browser> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: run scripts/install_chromium.sh first, ` +
        "or set SKIP_BROWSER_TESTS=1 to skip the browser tests",
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A browser profile of its own (so its own sign-in), failing the test on any page error. */
async function newVisitor(
  browser: Browser,
  local: LocalDevelopment,
  viewport = { width: 1024, height: 768 },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, baseURL: local.appUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  if (Deno.env.get("E2E_DEBUG")) {
    page.on("console", (m) => console.error(`[browser ${m.type()}] ${m.text()}`));
  }
  return { context, page, errors };
}

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}

/** Signs in on the sign-in page the app sent the visitor to, and waits to be sent back. */
async function signInHere(page: Page, email: string, returnsTo: RegExp): Promise<void> {
  await page.waitForURL(/\/sign-in\//);
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill("any local password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(returnsTo);
}

/** Waits for the once-shown key panel and reads the key from it. */
async function readNewKey(page: Page): Promise<string> {
  const panel = page.locator("#new-key");
  await panel.waitFor();
  ok((await panel.textContent())?.includes("You will not see it again"), "the key is shown once");
  const apiKey = (await page.locator("#new-key-value").textContent())?.trim() ?? "";
  match(apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  return apiKey;
}

async function createCharacter(
  local: LocalDevelopment,
  user: TestUser,
  name: string,
): Promise<number> {
  const created = successData(
    await local.call("create-character", { name, level: 3 }, { token: user.access_token }),
  );
  return created.id;
}

browserTest(
  "web app: a key gets access to a character through the consent screen, and loses it on revoke",
  async (browser, local) => {
    const developerEmail = `dev-${crypto.randomUUID()}@example.test`;
    const player = await local.makeUser();
    const characterId = await createCharacter(local, player, "Mira Stonefist");

    // The developer signs in from developer settings and creates a client.
    const dev = await newVisitor(browser, local);
    await dev.page.goto("/settings/developer/");
    await dev.page.getByRole("main").getByRole("link", { name: "Sign in" }).click();
    await dev.page.getByLabel("Email address").waitFor();
    await screenshot(dev.page, "01-sign-in");
    await signInHere(dev.page, developerEmail, /\/settings\/developer\/$/);
    await dev.page.getByLabel(/^Name/).fill("Party Tracker");
    await dev.page.getByLabel("Description").fill("Keeps the party's hit points in sync");
    await dev.page.getByRole("button", { name: "Create client" }).click();
    const apiKey = await readNewKey(dev.page);
    await dev.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await dev.page.getByRole("button", { name: "Copy key" }).click();
    await dev.page.getByText("The key is on your clipboard.").waitFor();
    equal(await dev.page.evaluate("navigator.clipboard.readText()"), apiKey);
    const keyPanel = dev.page.locator("#new-key");
    await dev.page.locator(".card", { hasText: "Party Tracker" }).waitFor();
    await screenshot(dev.page, "02-developer-settings-new-key");
    await dev.page.getByRole("button", { name: "I have saved the key" }).click();
    equal(await keyPanel.isHidden(), true);
    equal(await dev.page.locator("#new-key-value").textContent(), "", "the key is gone");
    const template = await dev.page.locator(".card", { hasText: "Party Tracker" })
      .locator("code.link").textContent() ?? "";
    ok(template?.endsWith("character_id=CHARACTER_ID"), `authorization link: ${template}`);
    const consentUrl = template.replace("CHARACTER_ID", String(characterId));

    // Without a grant, the key cannot read the character.
    equal(
      failMessage(await local.call("find-character", { id: characterId }, { token: apiKey }), 403),
      NO_ACCESS,
    );

    // The player opens the link, signs in, and sees the request.
    const owner = await newVisitor(browser, local);
    await owner.page.goto(consentUrl);
    await owner.page.locator("#sign-in-link").waitFor();
    await screenshot(owner.page, "03-consent-signed-out");
    await owner.page.locator("#sign-in-link").click();
    await owner.page.waitForURL(/\/sign-in\//);
    await owner.page.getByRole("button", { name: player.email }).click();
    await owner.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.page.waitForURL((url) =>
      url.pathname === "/oauth/access/" || url.pathname === "/oauth/access"
    );
    const request = owner.page.locator("#request");
    await request.waitFor();
    const shown = (await request.textContent()) ?? "";
    for (
      const expected of [
        "Party Tracker",
        developerEmail.split("@")[0]!,
        "Mira Stonefist",
        "Read your character",
        "Edit its stats",
        "Manage its inventory",
      ]
    ) {
      ok(shown.includes(expected), `the consent screen shows ${expected}`);
    }
    await screenshot(owner.page, "04-consent-request");
    await owner.page.getByRole("button", { name: "Allow access" }).click();
    await owner.page.getByText("Access allowed.").waitFor();
    await screenshot(owner.page, "05-consent-allowed");

    const read = successData(
      await local.call("find-character", { id: characterId }, { token: apiKey }),
    );
    equal(read.id, characterId);
    equal(read.name, "Mira Stonefist");

    // The player revokes it on the character's authorized clients page.
    await owner.page.getByRole("link", { name: /authorized clients/ }).click();
    await owner.page.waitForURL(/\/characters\/authorized-clients\/\?character_id=/);
    const card = owner.page.locator(".card", { hasText: "Party Tracker" });
    await card.waitFor();
    await screenshot(owner.page, "06-authorized-clients");
    await card.getByRole("button", { name: "Revoke access of Party Tracker" }).click();
    const dialog = owner.page.getByRole("dialog");
    await dialog.waitFor();
    await screenshot(owner.page, "07-authorized-clients-confirm");
    await dialog.getByRole("button", { name: "Revoke access" }).click();
    await owner.page.getByText("no longer has access").waitFor();
    await owner.page.locator("#no-grants").waitFor();
    await screenshot(owner.page, "08-authorized-clients-revoked");

    equal(
      failMessage(await local.call("find-character", { id: characterId }, { token: apiKey }), 403),
      NO_ACCESS,
    );

    await owner.page.goto("/characters/");
    await owner.page.getByRole("heading", { name: "Mira Stonefist" }).waitFor();
    await screenshot(owner.page, "09-characters");
    equal(dev.errors.concat(owner.errors).join("\n"), "", "no script errors on any page");
    await dev.context.close();
    await owner.context.close();
  },
);

browserTest(
  "web app: a mismatched or incomplete consent link stores nothing",
  async (browser, local) => {
    const developer = await local.makeUser();
    const stranger = await local.makeUser();
    const player = await local.makeUser();
    const client = successData(
      await local.call("create-api-client", { name: "Loot Ledger" }, {
        token: developer.access_token,
      }),
    );
    const own = await createCharacter(local, player, "Tamsin Reed");
    const notOwn = await createCharacter(local, stranger, "Someone Else");
    const { context, page, errors } = await newVisitor(browser, local);
    await page.goto("/sign-in/");
    await page.getByLabel("Email address").fill(player.email);
    await page.getByLabel("Password").fill("x");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/");

    const link = (userId: string, characterId: number | string) =>
      `/oauth/access?user_id=${userId}&client_id=${client.id}&character_id=${characterId}`;

    await page.goto(link(stranger.user_id, own));
    await page.getByText("This application could not be found").waitFor();
    equal(await page.getByRole("button", { name: "Allow access" }).isVisible(), false);
    await screenshot(page, "10-consent-wrong-owner");

    await page.goto(link(developer.user_id, notOwn));
    await page.getByText("This character is not one of yours").waitFor();
    equal(await page.getByRole("button", { name: "Allow access" }).isVisible(), false);

    await page.goto(link(developer.user_id, "abc"));
    await page.getByText("This authorization link is incomplete or damaged").waitFor();
    await screenshot(page, "11-consent-bad-link");

    // Cancel stores nothing either.
    await page.goto(link(developer.user_id, own));
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByText("Nothing was shared.").waitFor();
    const grants = successData(
      await local.call("find-character-access", { character_id: own }, {
        token: player.access_token,
      }),
    );
    equal(grants.length, 0);
    equal(errors.join("\n"), "");
    await context.close();
  },
);

browserTest(
  "web app: revoking an API client asks first, and its key stops working",
  async (browser, local) => {
    const developer = await local.makeUser();
    const { context, page, errors } = await newVisitor(browser, local, { width: 375, height: 740 });
    // The list of clients arrives late: the form, shown at once, must already be handled.
    let slowed = false;
    await page.route("**/find-api-client", async (route) => {
      if (!slowed) {
        slowed = true;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }
      await route.continue();
    });
    await page.goto("/sign-in/?next=/settings/developer/");
    await page.getByLabel("Email address").fill(developer.email);
    await page.getByLabel("Password").fill("x");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/settings\/developer\/$/);
    // Keyboard only: the name field, then the create button.
    await page.getByLabel(/^Name/).waitFor();
    await page.getByLabel(/^Name/).focus();
    await page.keyboard.type("Initiative Bot");
    await page.getByRole("button", { name: "Create client" }).focus();
    await page.keyboard.press("Enter");
    const apiKey = await readNewKey(page);
    await screenshot(page, "12-developer-settings-phone");
    await page.getByRole("button", { name: "I have saved the key" }).click();

    const card = page.locator(".card", { hasText: "Initiative Bot" });
    await card.getByRole("button", { name: "Revoke Initiative Bot" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Keep client" }).click();
    await card.waitFor();
    successData(await local.call("find-spell", { id: 1 }, { token: apiKey }));

    await card.getByRole("button", { name: "Revoke Initiative Bot" }).click();
    await screenshot(page, "13-developer-settings-revoke-confirm");
    await page.getByRole("dialog").getByRole("button", { name: "Revoke client" }).click();
    await page.getByText("Initiative Bot was revoked").waitFor();
    await page.locator("#no-clients").waitFor();
    equal(
      failMessage(await local.call("find-spell", { id: 1 }, { token: apiKey }), 401),
      "Invalid API Key, no client found",
    );
    equal(errors.join("\n"), "");
    await context.close();
  },
);

browserTest(
  "web app: a signed-out visitor is asked to sign in, and comes back where it was",
  async (browser, local) => {
    const visitor = await local.makeUser();
    const { context, page, errors } = await newVisitor(browser, local);
    const pages = [
      ["/", "to manage your characters and API clients."],
      ["/characters/", "to see your characters."],
      ["/settings/developer/", "to manage your API clients."],
      ["/characters/authorized-clients/?character_id=1", "to see who may use this character."],
    ];
    for (const [path, purpose] of pages) {
      await page.goto(path!);
      const notice = page.locator("#status");
      await notice.getByText(`Sign in ${purpose}`).waitFor();
      const link = notice.getByRole("link", { name: "Sign in" });
      equal(await link.getAttribute("href"), `/sign-in/?next=${encodeURIComponent(path!)}`);
    }
    await page.locator("#status").getByRole("link", { name: "Sign in" }).click();
    await signInHere(page, visitor.email, /\/characters\/authorized-clients\/\?character_id=1$/);
    equal(errors.join("\n"), "");
    await context.close();
  },
);

browserTest("web app: sign-in never sends the visitor to another site", async (browser, local) => {
  const visitor = await local.makeUser();
  const { context, page, errors } = await newVisitor(browser, local);
  const appOrigin = new URL(local.appUrl).origin;
  for (
    const next of [
      "%2F.%2F%2Fevil.example%2Fphish",
      "%2F%2Fevil.example%2Fphish",
      "%2F%5Cevil.example%2Fphish",
      "https%3A%2F%2Fevil.example%2Fphish",
      "%2F%2E%2E%2F%2Fevil.example",
    ]
  ) {
    await page.goto(`/sign-in/?next=${next}`);
    await signInHere(page, visitor.email, /^[a-z]+:\/\/[^/]+\/(?!sign-in\/)/);
    await page.waitForLoadState();
    equal(new URL(page.url()).origin, appOrigin, `next=${next} left the site`);
    await page.evaluate(() => localStorage.clear());
  }
  equal(errors.join("\n"), "");
  await context.close();
});

test("local sign-in (a server in local development)", async (t) => {
  await withLocalDevelopment(async (local) => {
    await t.step(
      "supabase-js signs in, calls a function with the session, and signs out",
      async () => {
        const config = await (await fetch(`${local.appUrl}/app-config.json`)).json();
        equal(config.localAccounts, true);
        const supabase = createClient(config.supabaseUrl, config.supabaseAnonKey, {
          auth: { persistSession: false, autoRefreshToken: false },
        });
        const email = `local-${crypto.randomUUID()}@example.test`;
        const { data, error } = await supabase.auth.signInWithPassword({
          email,
          password: "anything",
        });
        equal(error, null);
        equal(data.user?.email, email);
        const user = await supabase.auth.getUser();
        equal(user.data.user?.id, data.user?.id);
        const listed = await supabase.functions.invoke("find-api-client", { body: {} });
        equal(listed.data?.status, "success");
        const refreshed = await supabase.auth.refreshSession();
        equal(refreshed.error, null);
        ok(refreshed.data.session?.access_token);
        equal((await supabase.auth.signOut()).error, null);

        // Signing in again finds the same account.
        const again = await supabase.auth.signInWithPassword({ email, password: "other" });
        equal(again.data.user?.id, data.user?.id);
        const empty = await supabase.auth.signInWithPassword({ email, password: "" });
        equal(empty.error?.status, 400);
        await supabase.auth.signOut();
      },
    );

    await t.step("an account keeps the supporter tier it already has", async () => {
      const supporter = await local.makeUser({ tier: 2 });
      const res = await fetch(`${local.appUrl}/auth/v1/token?grant_type=password`, {
        method: "POST",
        body: JSON.stringify({ email: supporter.email, password: "x" }),
      });
      equal(res.status, 200);
      const session = await res.json();
      equal(session.user.id, supporter.user_id);
      const [row] = await local.sql<{ supporter_tier: number }[]>`
        select supporter_tier from public.public_user where user_id = ${supporter.user_id}`;
      equal(row?.supporter_tier, 2);
    });
  });
});

test("web route serves the pages and refuses paths outside web/", async () => {
  for (const path of ["/", "/sign-in/", "/settings/developer/", "/oauth/access", "/characters/"]) {
    const res = await fetch(`${server.appUrl}${path}`);
    equal(res.status, 200, path);
    match(res.headers.get("content-type") ?? "", /text\/html/);
    equal(res.headers.get("x-frame-options"), "DENY");
    await res.body?.cancel();
  }
  const lib = await fetch(`${server.appUrl}/assets/vendor/supabase.js`);
  equal(lib.status, 200);
  match(await lib.text(), /createClient/);
  for (const path of ["/%2e%2e/deno.json", "/assets/%2e%2e/%2e%2e/deno.json", "/.env.example"]) {
    const res = await fetch(`${server.appUrl}${path}`);
    equal(res.status, 404, path);
    await res.body?.cancel();
  }
});
