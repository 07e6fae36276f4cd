const root = new URL("../", import.meta.url);

/**
 * Fills the process environment from `.env` (or, on a fresh clone, `.env.example`, whose values
 * are safe local defaults) without overriding anything already set.
 */
export async function loadEnvFile(): Promise<string> {
  for (const name of [".env", ".env.example"]) {
    let text: string;
    try {
      text = await Deno.readTextFile(new URL(name, root));
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const match = /^\s*([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
      if (!match?.[1] || match[2] === undefined) continue;
      const value = match[2].replace(/^(['"])(.*)\1$/, "$2");
      if (Deno.env.get(match[1]) === undefined) Deno.env.set(match[1], value);
    }
    return name;
  }
  return "(none)";
}
