// The sign-in page: password sign-in through supabase-js (Supabase Auth when hosted, the local
// server's stand-in locally), then back to the page that sent the user here.
import { app, h, notify, safeNext, showStartupError, startPage } from "./app.js";

const status = document.getElementById("status");
const form = /** @type {HTMLFormElement} */ (document.getElementById("sign-in-form"));
const email = /** @type {HTMLInputElement} */ (document.getElementById("email"));
const password = /** @type {HTMLInputElement} */ (document.getElementById("password"));
const submit = /** @type {HTMLButtonElement} */ (document.getElementById("sign-in-button"));
const signedIn = /** @type {HTMLElement} */ (document.getElementById("signed-in"));
const next = safeNext(new URLSearchParams(location.search).get("next"));

try {
  const { config, client } = await app();
  const user = await startPage();
  if (config.localAccounts && !user) await showLocalAccounts();
  if (user) {
    /** @type {HTMLElement} */ (document.getElementById("signed-in-email")).textContent =
      user.email;
    /** @type {HTMLAnchorElement} */ (document.getElementById("continue")).href = next;
    signedIn.hidden = false;
    document.getElementById("switch-account")?.addEventListener("click", async () => {
      await client.auth.signOut();
      location.reload();
    });
  } else {
    form.hidden = false;
    email.focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!address || !email.validity.valid) {
      notify(status, "error", "Enter a valid email address.");
      email.focus();
      return;
    }
    if (!password.value) {
      notify(status, "error", "Enter your password.");
      password.focus();
      return;
    }
    submit.disabled = true;
    notify(status, "info", "Signing in…");
    const { error } = await client.auth.signInWithPassword({
      email: address,
      password: password.value,
    });
    if (error) {
      submit.disabled = false;
      notify(status, "error", `Sign-in failed: ${error.message}`);
      return;
    }
    location.assign(next);
  });
} catch (e) {
  showStartupError(e);
}

/** Offers the local accounts to pick from (local server only). */
async function showLocalAccounts() {
  /** @type {HTMLElement} */ (document.getElementById("local-accounts")).hidden = false;
  const res = await fetch("/auth/v1/local-accounts", { cache: "no-store" });
  if (!res.ok) return;
  /** @type {string[]} */
  const emails = await res.json();
  if (emails.length === 0) return;
  const list = /** @type {HTMLElement} */ (document.getElementById("account-picks"));
  list.replaceChildren(
    ...emails.map((address) => {
      const pick = h("button", { type: "button", class: "secondary" }, address);
      pick.addEventListener("click", () => {
        email.value = address;
        password.value = password.value || "local";
        submit.focus();
      });
      return h("li", {}, pick);
    }),
  );
  /** @type {HTMLElement} */ (document.getElementById("account-picks-area")).hidden = false;
}
