type Fields = Record<string, string | number | boolean | null | undefined>;

const quiet = Deno.env.get("LOG_LEVEL") === "silent";

/**
 * The hosted platform keeps at most 100 log events per 10 s of a function instance and drops the
 * rest: each process writes at most INFO_LINES_PER_WINDOW info lines a window, counts the others,
 * and reports how many it left out with the next line it writes. Warnings and errors are always
 * written; they are rare, and they are what an operator must see.
 */
const WINDOW_MS = 10_000;
const INFO_LINES_PER_WINDOW = 60;
/** Longest line the platform keeps whole (10,000 characters); longer fields are cut. */
const MAX_LINE_CHARS = 9_000;

let windowStart = 0;
let written = 0;
let skipped = 0;

function write(level: "info" | "warn" | "error", event: string, fields: Fields): void {
  if (quiet && level === "info") return;
  const now = Date.now();
  if (now - windowStart >= WINDOW_MS) {
    windowStart = now;
    written = 0;
  }
  if (level === "info" && written >= INFO_LINES_PER_WINDOW) {
    skipped++;
    return;
  }
  written++;
  const record: Record<string, unknown> = { time: new Date(now).toISOString(), level, event };
  Object.assign(record, fields);
  if (skipped > 0) record.info_lines_skipped = skipped;
  skipped = 0;
  let line = JSON.stringify(record);
  if (line.length > MAX_LINE_CHARS) {
    line = JSON.stringify({ ...record, ...shortened(fields), truncated: true });
  }
  if (level === "info") console.log(line);
  else console.error(line);
}

function shortened(fields: Fields): Fields {
  const share = Math.floor(MAX_LINE_CHARS / Math.max(1, Object.keys(fields).length)) - 20;
  return Object.fromEntries(
    Object.entries(fields).map((
      [key, value],
    ) => [key, typeof value === "string" ? value.slice(0, share) : value]),
  );
}

/** Structured one-line JSON logs. Callers pass facts, never tokens, keys or bodies. */
export const log = {
  info: (event: string, fields: Fields): void => write("info", event, fields),
  warn: (event: string, fields: Fields): void => write("warn", event, fields),
  error: (event: string, fields: Fields): void => write("error", event, fields),
};
