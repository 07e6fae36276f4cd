// The consent screen at /oauth/access?user_id=&client_id=&character_id=: a character's owner
// allows a developer's API client to use that character. Nothing is stored until Confirm; a link
// with bad or mismatched parameters shows what is wrong and offers no Confirm.
import { callFunction, h, idParam, notify, showStartupError, signInUrl, startPage } from "./app.js";

const status = document.getElementById("status");
const request = /** @type {HTMLElement} */ (document.getElementById("request"));
const confirmButton = /** @type {HTMLButtonElement} */ (document.getElementById("confirm"));
const cancelButton = /** @type {HTMLButtonElement} */ (document.getElementById("cancel"));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const params = new URLSearchParams(location.search);
const ownerId = params.get("user_id") ?? "";
const clientId = idParam(params, "client_id");
const characterId = idParam(params, "character_id");

try {
  await start();
} catch (e) {
  showStartupError(e);
}

async function start() {
  const user = await startPage();
  const missing = [
    UUID.test(ownerId) ? null : "user_id",
    clientId === null ? "client_id" : null,
    characterId === null ? "character_id" : null,
  ].filter((name) => name !== null);
  if (missing.length > 0) {
    problem(
      "This authorization link is incomplete or damaged",
      `It needs a valid ${missing.join(", ")}. Ask the application's developer for a new link.`,
    );
    return;
  }
  if (!user) {
    notify(
      status,
      "info",
      h("p", {}, "An application asks for access to one of your characters."),
      h(
        "p",
        {},
        h("a", { href: signInUrl(), id: "sign-in-link" }, "Sign in"),
        " to review the request. You will come back to this page.",
      ),
    );
    return;
  }
  const [client, character] = await Promise.all([
    callFunction("get-api-client-info", { client_id: clientId, user_id: ownerId }),
    callFunction("find-character", { id: characterId }),
  ]);
  if (!client.ok || !client.data) {
    problem(
      "This application could not be found",
      "The link names an API client that does not exist or does not belong to the developer it " +
        "names. Ask the developer for a new link.",
    );
    return;
  }
  if (!character.ok || !character.data || character.data.user_id !== user.id) {
    problem(
      "This character is not one of yours",
      `You are signed in as ${user.email}, and character ${characterId} does not belong to this ` +
        "account. Sign in with the account that owns the character, or ask the developer to check the link.",
    );
    return;
  }
  show(client.data, character.data);
}

/**
 * Fills in the request and enables its buttons.
 * @param {any} client
 * @param {any} character
 */
function show(client, character) {
  const owner = client.owner_display_name || "an unnamed developer";
  /** @type {HTMLElement} */ (document.getElementById("client-name")).textContent = client.name;
  /** @type {HTMLElement} */ (document.getElementById("character-name")).textContent =
    character.name;
  /** @type {HTMLElement} */ (document.getElementById("client-line")).replaceChildren(
    h("strong", {}, client.name),
    client.description ? h("span", { class: "muted" }, ` — ${client.description}`) : "",
  );
  /** @type {HTMLElement} */ (document.getElementById("owner-name")).textContent = owner;
  /** @type {HTMLElement} */ (document.getElementById("character-line")).textContent =
    `${character.name}, level ${character.level}`;
  request.hidden = false;

  confirmButton.addEventListener("click", async () => {
    setBusy(true);
    notify(status, "info", "Saving your answer…");
    const result = await callFunction("grant-character-access", {
      client_id: clientId,
      user_id: ownerId,
      character_id: characterId,
    });
    if (!result.ok) {
      setBusy(false);
      notify(status, "error", `Access was not given: ${result.message}`);
      return;
    }
    request.hidden = true;
    notify(
      status,
      "success",
      h(
        "p",
        {},
        h("strong", {}, "Access allowed. "),
        `${client.name} can now use ${character.name}.`,
      ),
      h(
        "p",
        {},
        "You can withdraw it at any time on ",
        h(
          "a",
          { href: `/characters/authorized-clients/?character_id=${characterId}` },
          `${character.name}'s authorized clients`,
        ),
        ".",
      ),
    );
    document.getElementById("main")?.focus();
  });

  cancelButton.addEventListener("click", () => {
    request.hidden = true;
    notify(
      status,
      "info",
      h(
        "p",
        {},
        h("strong", {}, "Nothing was shared. "),
        `${client.name} has no access to ${character.name}.`,
      ),
      h("p", {}, h("a", { href: "/characters/" }, "Go to your characters")),
    );
    document.getElementById("main")?.focus();
  });
}

/** @param {boolean} busy */
function setBusy(busy) {
  confirmButton.disabled = busy;
  cancelButton.disabled = busy;
}

/**
 * Explains why the request cannot be shown; nothing can be confirmed.
 * @param {string} title
 * @param {string} detail
 */
function problem(title, detail) {
  request.hidden = true;
  status?.setAttribute("role", "alert");
  notify(status, "error", h("p", {}, h("strong", {}, title)), h("p", {}, detail));
}
