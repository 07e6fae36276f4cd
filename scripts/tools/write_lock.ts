/**
 * `deno task lock`: rewrites deno.lock with the hosted runtime's Deno (deno-versions.env), in the
 * lock format it reads (version 4); newer Deno keeps that format until a dependency changes.
 */
import { runtimeDeno, runtimeDenoEnv } from "../support/deno_runtime.ts";

const root = new URL("../../", import.meta.url);
await Deno.remove(new URL("deno.lock", root)).catch(() => {});
const { code } = await new Deno.Command(await runtimeDeno(), {
  args: ["install"],
  cwd: root,
  env: runtimeDenoEnv(),
}).output();
Deno.exit(code);
