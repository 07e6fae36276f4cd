import { isLocalDevelopment } from "./env_file.ts";
import { raiseOpenFileLimit } from "./file_limit.ts";
import { startServer } from "./server.ts";

const files = await raiseOpenFileLimit();

const port = Number(Deno.env.get("PORT") ?? 54321);
const running = await startServer({ port, dataDir: Deno.env.get("DATA_DIR") ?? ".data" });

if (isLocalDevelopment()) {
  console.log(
    "Local development mode (LOCAL_DEVELOPMENT=1): sign-in at /auth/v1 accepts any password and " +
      "the published example secrets are allowed. Never expose this server.",
  );
}
console.log(
  `Ready: ${running.functionsUrl}/<function-name> (${running.functionNames.length} functions, ` +
    `${running.database.kind} database), app at ${running.appUrl}`,
);
if (files) console.log(`Open files: up to ${files.soft} (hard limit ${files.hard})`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    if (stopping) return;
    stopping = true;
    await running.close();
    Deno.exit(0);
  });
}
