// The home page: where to go next, or a prompt to sign in.
import { askToSignIn, showStartupError, startPage } from "./app.js";

try {
  const user = await startPage();
  if (!user) {
    askToSignIn(document.getElementById("status"), "to manage your characters and API clients.");
  }
} catch (e) {
  showStartupError(e);
}
