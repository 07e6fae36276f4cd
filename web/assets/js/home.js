// The home page: where to go next, or a prompt to sign in.
import { h, notify, showStartupError, signInUrl, startPage } from "./app.js";

try {
  const user = await startPage();
  if (!user) {
    notify(
      document.getElementById("status"),
      "info",
      h(
        "p",
        {},
        h("a", { href: signInUrl() }, "Sign in"),
        " to manage your characters and API clients.",
      ),
    );
  }
} catch (e) {
  showStartupError(e);
}
