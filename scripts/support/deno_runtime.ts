/**
 * The hosted edge runtime's Deno (DENO_RUNTIME in deno-versions.env), installed from npm on first
 * use. Deno 2.1 reaches the npm registry only with DENO_CERT naming the system's CA bundle.
 */
const root = new URL("../../", import.meta.url);

/** A pinned version from deno-versions.env. */
export async function pinnedDeno(name: "DENO_RUNTIME" | "DENO_TOOLS"): Promise<string> {
  const text = await Deno.readTextFile(new URL("deno-versions.env", root));
  const version = new RegExp(`^${name}=(\\S+)$`, "m").exec(text)?.[1];
  if (!version) throw new Error(`deno-versions.env names no ${name}`);
  return version;
}

/** Variables Deno 2.1 needs to fetch npm packages here. */
export function runtimeDenoEnv(): Record<string, string> {
  const cert = Deno.env.get("SSL_CERT_FILE") ?? "/etc/ssl/certs/ca-certificates.crt";
  return { DENO_CERT: cert };
}

let resolved: Promise<string> | undefined;

/** The path of the runtime's Deno binary (DENO_RUNTIME_BIN when set). */
export function runtimeDeno(): Promise<string> {
  const given = Deno.env.get("DENO_RUNTIME_BIN");
  if (given) return Promise.resolve(given);
  return resolved ??= (async () => {
    const version = await pinnedDeno("DENO_RUNTIME");
    // Outside the project, whose lock file the npm wrapper's own run must not read.
    const { code, stdout, stderr } = await new Deno.Command("npx", {
      args: ["-y", `deno@${version}`, "eval", "console.log(Deno.execPath())"],
      cwd: Deno.makeTempDirSync(),
      env: runtimeDenoEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const path = new TextDecoder().decode(stdout).trim().split("\n").at(-1);
    if (code !== 0 || !path) {
      throw new Error(
        `Deno ${version} could not be installed: ${new TextDecoder().decode(stderr)}`,
      );
    }
    return path;
  })();
}
