// A character's authorized clients: the API clients its owner allowed to use it, each revocable
// after a confirmation.
import {
  askToSignIn,
  callFunction,
  confirmDialog,
  formatDate,
  h,
  idParam,
  notify,
  showStartupError,
  startPage,
} from "./app.js";

const status = document.getElementById("status");
const list = /** @type {HTMLElement} */ (document.getElementById("grants"));
const empty = /** @type {HTMLElement} */ (document.getElementById("no-grants"));
const characterId = idParam(new URLSearchParams(location.search), "character_id");

/** @type {any} */
let character = null;

try {
  const user = await startPage();
  if (characterId === null) {
    notify(status, "error", "This address names no character. Choose one from your characters.");
  } else if (!user) {
    askToSignIn(status, "to see who may use this character.");
  } else {
    const found = await callFunction("find-character", { id: characterId });
    if (!found.ok || !found.data || found.data.user_id !== user.id) {
      notify(
        status,
        "error",
        "This character is not one of yours, so its authorized clients are not shown here.",
      );
    } else {
      character = found.data;
      /** @type {HTMLElement} */ (document.getElementById("character-title")).textContent =
        `: ${character.name}`;
      document.title = `Authorized clients of ${character.name} · Character Builder`;
      await loadGrants();
    }
  }
} catch (e) {
  showStartupError(e);
}

async function loadGrants() {
  const result = await callFunction("find-character-access", { character_id: characterId });
  if (!result.ok) {
    notify(status, "error", `The authorized clients could not be loaded: ${result.message}`);
    return;
  }
  /** @type {any[]} */
  const grants = result.data;
  empty.hidden = grants.length > 0;
  list.replaceChildren(...grants.map(grantCard));
}

/** @param {any} grant */
function grantCard(grant) {
  const revoke = h("button", { type: "button", class: "danger" }, "Revoke access");
  revoke.setAttribute("aria-label", `Revoke access of ${grant.client_name}`);
  revoke.addEventListener("click", () => revokeGrant(grant));
  return h(
    "li",
    { class: "card", "data-client-id": String(grant.client_id) },
    h("h2", { class: "h3" }, grant.client_name),
    h(
      "dl",
      {},
      h("dt", {}, "Made by"),
      h("dd", {}, grant.owner_display_name || "An unnamed developer"),
      h("dt", {}, "Description"),
      h("dd", {}, grant.client_description || "None"),
      h("dt", {}, "Allowed on"),
      h("dd", {}, formatDate(grant.granted_at)),
    ),
    h("div", { class: "actions" }, revoke),
  );
}

/** @param {any} grant */
async function revokeGrant(grant) {
  const confirmed = await confirmDialog({
    title: `Revoke ${grant.client_name}?`,
    message: `${grant.client_name} will no longer be able to read or edit ${character.name}. ` +
      "To give access again, the developer must send you a new request.",
    confirmLabel: "Revoke access",
    cancelLabel: "Keep access",
  });
  if (!confirmed) return;
  const result = await callFunction("revoke-character-access", {
    client_id: grant.client_id,
    character_id: characterId,
  });
  if (!result.ok) {
    notify(status, "error", `Access was not revoked: ${result.message}`);
    return;
  }
  notify(status, "success", `${grant.client_name} no longer has access to ${character.name}.`);
  await loadGrants();
  document.getElementById("main")?.focus();
}
