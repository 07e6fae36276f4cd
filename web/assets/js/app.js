// What every page shares: the configuration, the supabase-js client (sign-in and function calls),
// the header's account area, and small DOM helpers. supabase-js is loaded before this module by a
// classic <script> tag and is reached as the global `supabase`.

/**
 * @typedef {{ supabaseUrl: string, supabaseAnonKey: string, localAccounts: boolean }} AppConfig
 * @typedef {{ ok: true, data: any } | { ok: false, message: string, status: number }} CallResult
 */

/** @type {Promise<{ config: AppConfig, client: any }> | undefined} */
let started;

/** The configuration and the one supabase-js client of this page. */
export function app() {
  started ??= (async () => {
    const res = await fetch("/app-config.json", { cache: "no-store" });
    if (!res.ok) throw new Error("The app configuration could not be loaded");
    /** @type {AppConfig} */
    const config = await res.json();
    const lib = /** @type {any} */ (globalThis).supabase;
    if (!lib?.createClient) throw new Error("The sign-in library could not be loaded");
    const client = lib.createClient(config.supabaseUrl, config.supabaseAnonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
    });
    return { config, client };
  })();
  return started;
}

/** The signed-in user as the auth server confirms it, or null (a stale session is dropped). */
export async function currentUser() {
  const { client } = await app();
  const { data: { session } } = await client.auth.getSession();
  if (!session) return null;
  const { data, error } = await client.auth.getUser();
  if (data?.user) return data.user;
  // Only the auth server's refusal ends the session here: a failed or interrupted request (such
  // as one cut short by leaving the page) must not sign the user out.
  if (error?.status === 401 || error?.status === 403) {
    await client.auth.signOut({ scope: "local" });
    return null;
  }
  return session.user;
}

/**
 * Calls a function with the signed-in user's access token and unwraps its JSend answer.
 * @param {string} name
 * @param {Record<string, unknown>} body
 * @returns {Promise<CallResult>}
 */
export async function callFunction(name, body = {}) {
  const { client } = await app();
  const { data, error } = await client.functions.invoke(name, { body });
  if (error) {
    const response = error.context;
    let message = "The service could not be reached. Check your connection and try again.";
    if (response && typeof response.json === "function") {
      try {
        const parsed = await response.json();
        message = parsed?.data?.message ?? parsed?.message ?? message;
      } catch {
        // not JSON: keep the general message
      }
    }
    return { ok: false, message, status: response?.status ?? 0 };
  }
  if (data?.status === "success") return { ok: true, data: data.data };
  if (data?.status === "fail") return { ok: false, message: data.data.message, status: 200 };
  return {
    ok: false,
    message: data?.message ?? "The service gave an answer this page does not understand",
    status: 200,
  };
}

/** The sign-in page's address, returning to the current page afterwards. */
export function signInUrl() {
  const next = location.pathname + location.search;
  return `/sign-in/?next=${encodeURIComponent(next)}`;
}

/**
 * A same-origin path to go to after signing in, or "/" when `next` is missing or points away.
 * @param {string | null} next
 */
export function safeNext(next) {
  if (!next || !next.startsWith("/") || /^\/[\/\\]/.test(next)) return "/";
  try {
    const url = new URL(next, location.origin);
    const path = url.pathname + url.search + url.hash;
    // "/.//evil.example" normalises to "//evil.example", which a browser reads as another host.
    if (url.origin !== location.origin || /^\/[\/\\]/.test(path)) return "/";
    return path;
  } catch {
    return "/";
  }
}

/**
 * Fills the header's account area: who is signed in and a sign-out button, or a sign-in link.
 * Also marks the current page in the main navigation.
 * @param {any} user
 */
export function renderAccount(user) {
  for (const link of document.querySelectorAll(".site-header nav a")) {
    const target = new URL(/** @type {HTMLAnchorElement} */ (link).href);
    if (target.pathname === location.pathname) link.setAttribute("aria-current", "page");
  }
  const area = document.getElementById("account");
  if (!area) return;
  if (!user) {
    const onSignIn = location.pathname.startsWith("/sign-in");
    area.replaceChildren(
      onSignIn ? "" : h("a", { href: signInUrl(), class: "button secondary" }, "Sign in"),
    );
    return;
  }
  const signOut = h("button", { type: "button", class: "button secondary" }, "Sign out");
  signOut.addEventListener("click", async () => {
    const { client } = await app();
    await client.auth.signOut();
    location.assign("/sign-in/");
  });
  area.replaceChildren(
    h("span", {}, "Signed in as ", h("strong", { "data-testid": "account-email" }, user.email)),
    signOut,
  );
}

/** Starts a page: the account area, then the signed-in user (or null). */
export async function startPage() {
  try {
    const user = await currentUser();
    renderAccount(user);
    return user;
  } catch (e) {
    renderAccount(null);
    throw e;
  }
}

/**
 * Builds an element. Text is always added as text, never parsed as HTML.
 * @param {string} tag
 * @param {Record<string, string | boolean>} attributes
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false) continue;
    element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/**
 * Shows a message in a notice area (its role decides how screen readers announce it).
 * @param {HTMLElement | null} area
 * @param {"info" | "success" | "error" | "warning"} kind
 * @param {...(Node | string)} content
 */
export function notify(area, kind, ...content) {
  if (!area) return;
  area.className = `notice ${kind}`;
  area.replaceChildren(...content.map((c) => (typeof c === "string" ? h("p", {}, c) : c)));
}

/**
 * Tells a signed-out visitor, in a notice area, what signing in leads to.
 * @param {HTMLElement | null} area
 * @param {string} purpose what follows "Sign in", e.g. "to see your characters."
 */
export function askToSignIn(area, purpose) {
  notify(area, "info", h("p", {}, h("a", { href: signInUrl() }, "Sign in"), ` ${purpose}`));
}

/**
 * A date and time in the reader's locale, or the given text for an empty value.
 * @param {string | null | undefined} iso
 * @param {string} empty
 */
export function formatDate(iso, empty = "Never") {
  if (!iso) return empty;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * Asks for confirmation in a modal dialog; resolves true when confirmed. Escape or the cancel
 * button resolves false. The safe choice (cancel) has the focus first.
 * @param {{ title: string, message: string, confirmLabel: string, cancelLabel?: string }} options
 * @returns {Promise<boolean>}
 */
export function confirmDialog(options) {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${crypto.randomUUID()}`;
    const cancel = h(
      "button",
      { type: "button", class: "secondary", autofocus: true },
      options.cancelLabel ?? "Cancel",
    );
    const confirm = h("button", { type: "button", class: "danger" }, options.confirmLabel);
    const dialog = /** @type {HTMLDialogElement} */ (h(
      "dialog",
      { "aria-labelledby": titleId },
      h("h2", { id: titleId }, options.title),
      h("p", {}, options.message),
      h("div", { class: "actions" }, cancel, confirm),
    ));
    let answer = false;
    cancel.addEventListener("click", () => dialog.close());
    confirm.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * Copies text to the clipboard; where that is not allowed, selects the element showing the text
 * so it can be copied with the keyboard.
 * @param {string} text
 * @param {HTMLElement | null} shown
 * @returns {Promise<boolean>}
 */
export async function copyText(text, shown = null) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (shown) {
      const range = document.createRange();
      range.selectNodeContents(shown);
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
    return false;
  }
}

/**
 * A positive integer query parameter, or null.
 * @param {URLSearchParams} params
 * @param {string} name
 */
export function idParam(params, name) {
  const value = params.get(name);
  if (!value || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : null;
}

/** Shows an unexpected start-up failure in the page's main notice. */
export function showStartupError(/** @type {unknown} */ e) {
  const message = e instanceof Error ? e.message : String(e);
  notify(
    document.getElementById("status"),
    "error",
    `This page could not start: ${message}. Reload the page to try again.`,
  );
}
