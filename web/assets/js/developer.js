// Developer settings: the signed-in user's API clients. Create one (its key is shown once), copy
// a client's authorization link, revoke a client after confirming.
import {
  askToSignIn,
  callFunction,
  confirmDialog,
  copyText,
  formatDate,
  h,
  notify,
  showStartupError,
  startPage,
} from "./app.js";

const status = document.getElementById("status");
const content = /** @type {HTMLElement} */ (document.getElementById("content"));
const form = /** @type {HTMLFormElement} */ (document.getElementById("create-form"));
const nameInput = /** @type {HTMLInputElement} */ (document.getElementById("client-name"));
const descriptionInput = /** @type {HTMLTextAreaElement} */ (
  document.getElementById("client-description")
);
const createError = document.getElementById("create-error");
const createButton = /** @type {HTMLButtonElement} */ (document.getElementById("create-button"));
const newKey = /** @type {HTMLElement} */ (document.getElementById("new-key"));
const newKeyValue = /** @type {HTMLElement} */ (document.getElementById("new-key-value"));
const copyStatus = /** @type {HTMLElement} */ (document.getElementById("copy-status"));
const list = /** @type {HTMLElement} */ (document.getElementById("clients"));
const noClients = /** @type {HTMLElement} */ (document.getElementById("no-clients"));

/** @type {string} */
let userId = "";

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = nameInput.value.trim();
  if (!name) {
    notify(createError, "error", "Enter a name for the client.");
    nameInput.setAttribute("aria-invalid", "true");
    nameInput.focus();
    return;
  }
  nameInput.removeAttribute("aria-invalid");
  notify(createError, "error");
  createButton.disabled = true;
  const description = descriptionInput.value.trim();
  const result = await callFunction(
    "create-api-client",
    description ? { name, description } : {
      name,
    },
  );
  createButton.disabled = false;
  if (!result.ok) {
    notify(createError, "error", `The client was not created: ${result.message}`);
    return;
  }
  form.reset();
  showNewKey(result.data.name, result.data.api_key);
  await loadClients();
});

document.getElementById("copy-key")?.addEventListener("click", async () => {
  const copied = await copyText(newKeyValue.textContent ?? "", newKeyValue);
  copyStatus.textContent = copied
    ? "The key is on your clipboard."
    : "Copying is not allowed here: the key is selected, copy it with your keyboard.";
});

document.getElementById("key-saved")?.addEventListener("click", () => {
  newKeyValue.textContent = "";
  copyStatus.textContent = "";
  newKey.hidden = true;
  nameInput.focus();
});

/**
 * Shows a new key, once, and moves the focus to it.
 * @param {string} clientName
 * @param {string} apiKey
 */
function showNewKey(clientName, apiKey) {
  /** @type {HTMLElement} */ (document.getElementById("new-key-client")).textContent = clientName;
  newKeyValue.textContent = apiKey;
  copyStatus.textContent = "";
  newKey.hidden = false;
  newKey.focus();
}

async function loadClients() {
  const result = await callFunction("find-api-client", {});
  if (!result.ok) {
    notify(status, "error", `Your API clients could not be loaded: ${result.message}`);
    return;
  }
  /** @type {any[]} */
  const clients = result.data;
  noClients.hidden = clients.length > 0;
  list.replaceChildren(...clients.map(clientCard));
}

/** @param {any} client */
function clientCard(client) {
  const link = authorizationLink(client.id);
  const linkLabelId = `link-label-${client.id}`;
  const linkShown = h("code", { class: "link" }, link);
  const copyLink = h("button", { type: "button", class: "secondary" }, "Copy link");
  const copyLinkStatus = h("span", { role: "status", class: "hint" });
  copyLink.addEventListener("click", async () => {
    const copied = await copyText(link, linkShown);
    copyLinkStatus.textContent = copied ? "Link copied." : "The link is selected: copy it now.";
  });
  const revoke = h("button", { type: "button", class: "danger" }, "Revoke");
  revoke.setAttribute("aria-label", `Revoke ${client.name}`);
  revoke.addEventListener("click", () => revokeClient(client));
  return h(
    "li",
    { class: "card", "data-client-id": String(client.id) },
    h("h3", {}, client.name),
    h(
      "dl",
      {},
      h("dt", {}, "Description"),
      h("dd", {}, client.description || "None"),
      h("dt", {}, "Created"),
      h("dd", {}, formatDate(client.created_at)),
      h("dt", {}, "Last used"),
      h("dd", {}, formatDate(client.last_used_at)),
    ),
    h(
      "div",
      { class: "field" },
      h("p", { id: linkLabelId, class: "key-label" }, "Authorization link"),
      h(
        "p",
        { class: "hint" },
        "Put the player's character id in place of CHARACTER_ID at the end.",
      ),
      h(
        "div",
        { class: "secret", role: "group", "aria-labelledby": linkLabelId },
        linkShown,
        copyLink,
      ),
      copyLinkStatus,
    ),
    h("div", { class: "actions" }, revoke),
  );
}

/** The consent link for a client, with the character id left for the developer to fill in. */
function authorizationLink(/** @type {number} */ clientId) {
  const url = new URL("/oauth/access", location.origin);
  url.searchParams.set("user_id", userId);
  url.searchParams.set("client_id", String(clientId));
  return `${url.href}&character_id=CHARACTER_ID`;
}

/** @param {any} client */
async function revokeClient(client) {
  const confirmed = await confirmDialog({
    title: `Revoke ${client.name}?`,
    message:
      "Its key stops working at once, and every character access players gave it ends. This cannot be undone.",
    confirmLabel: "Revoke client",
    cancelLabel: "Keep client",
  });
  if (!confirmed) return;
  const result = await callFunction("delete-api-client", { id: client.id });
  if (!result.ok) {
    notify(status, "error", `${client.name} was not revoked: ${result.message}`);
    return;
  }
  notify(status, "success", `${client.name} was revoked. Its key no longer works.`);
  await loadClients();
  nameInput.focus();
}

// Started once every handler is in place: the form is shown before the clients have loaded, and
// a submit before its handler would reload the page with the fields in its address.
try {
  const user = await startPage();
  if (!user) {
    askToSignIn(status, "to manage your API clients.");
  } else {
    userId = user.id;
    content.hidden = false;
    await loadClients();
  }
} catch (e) {
  showStartupError(e);
}
