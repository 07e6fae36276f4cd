/**
 * Raises this process's soft limit on open files to its hard limit. Every connection is a file
 * descriptor; at the common soft limit of 1,024 a burst of idle connections ended the process
 * with "Too many open files", while the hard limit is usually far higher. Deno has no setrlimit,
 * so util-linux `prlimit` changes the running process; without it the limit stays and is reported.
 */
export async function raiseOpenFileLimit(): Promise<{ soft: number; hard: number } | null> {
  const read = openFileLimit;
  const before = await read();
  if (!before || before.soft >= before.hard || !Number.isFinite(before.hard)) return before;
  try {
    await new Deno.Command("prlimit", {
      args: ["--pid", String(Deno.pid), `--nofile=${before.hard}:${before.hard}`],
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // prlimit is not installed: keep the limit as it is
  }
  return await read();
}

/** This process's limits on open files, or null where /proc does not tell (not Linux). */
export async function openFileLimit(): Promise<{ soft: number; hard: number } | null> {
  const limits = await Deno.readTextFile("/proc/self/limits").catch(() => "");
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
  if (!match) return null;
  const number = (v: string) => (v === "unlimited" ? Infinity : Number(v));
  return { soft: number(match[1]!), hard: number(match[2]!) };
}
