type Fields = Record<string, string | number | boolean | null | undefined>;

const quiet = Deno.env.get("LOG_LEVEL") === "silent";

function write(level: "info" | "warn" | "error", event: string, fields: Fields): void {
  if (quiet && level === "info") return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, event, ...fields });
  if (level === "info") console.log(line);
  else console.error(line);
}

/** Structured one-line JSON logs. Callers pass facts, never tokens, keys or bodies. */
export const log = {
  info: (event: string, fields: Fields): void => write("info", event, fields),
  warn: (event: string, fields: Fields): void => write("warn", event, fields),
  error: (event: string, fields: Fields): void => write("error", event, fields),
};
