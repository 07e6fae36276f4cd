// The signed-in user's characters, each linking to its authorized clients.
import { askToSignIn, callFunction, h, notify, showStartupError, startPage } from "./app.js";

const status = document.getElementById("status");
const list = /** @type {HTMLElement} */ (document.getElementById("characters"));
const empty = /** @type {HTMLElement} */ (document.getElementById("no-characters"));

try {
  const user = await startPage();
  if (!user) {
    askToSignIn(status, "to see your characters.");
  } else {
    const result = await callFunction("find-character", { user_id: user.id });
    if (!result.ok) {
      notify(status, "error", `Your characters could not be loaded: ${result.message}`);
    } else {
      /** @type {any[]} */
      const characters = result.data;
      empty.hidden = characters.length > 0;
      list.replaceChildren(
        ...characters.map((character) =>
          h(
            "li",
            { class: "card" },
            h("h2", { class: "h3" }, character.name),
            h("p", { class: "muted" }, `Level ${character.level}`),
            h(
              "a",
              { href: `/characters/authorized-clients/?character_id=${character.id}` },
              "Authorized clients",
              h("span", { class: "visually-hidden" }, ` of ${character.name}`),
            ),
          )
        ),
      );
    }
  }
} catch (e) {
  showStartupError(e);
}
