/** A node of a V8 CPU profile, as the inspector's Profiler.stop returns it. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** The part of a V8 CPU profile this module reads. */
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
}

/**
 * Records a CPU profile of a process started with `--inspect=<host:port>` through the V8 inspector
 * protocol, while `during` runs, and returns where its samples fell.
 */
export async function profileDuring(
  inspectorUrl: string,
  during: () => Promise<void>,
): Promise<Profile> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (typeof message.id === "number") waiting.get(message.id)?.(message.result);
  };
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: 200 });
    await send("Profiler.start");
    await during();
    const { profile } = await send("Profiler.stop") as { profile: Profile };
    return profile;
  } finally {
    socket.close();
  }
}

/** Share of samples per group (package or our own module), and the hottest functions. */
export function summarize(profile: Profile, top = 20): string {
  const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0);
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const group = groupOf(url, functionName);
    byGroup.set(group, (byGroup.get(group) ?? 0) + hits);
    const name = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  }
  const pct = (n: number) => `${((n / total) * 100).toFixed(1)}%`.padStart(6);
  const lines = ["Self time by module group:"];
  for (const [group, hits] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(hits)}  ${group}`);
  }
  lines.push("Hottest functions (self time):");
  for (const [name, hits] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(hits)}  ${name}`);
  }
  return lines.join("\n");
}

function groupOf(url: string, functionName: string): string {
  if (url === "") {
    return functionName.startsWith("(") ? functionName : "(native / runtime)";
  }
  const npm = /node_modules\/\.deno\/([^/]+)\//.exec(url) ??
    /registry\.npmjs\.org\/([^/]+)/.exec(url);
  if (npm?.[1]) return `npm:${npm[1]}`;
  if (url.startsWith("ext:") || url.startsWith("node:")) {
    return url.split("/")[0]!.split(":").slice(0, 2).join(":");
  }
  const ours = /\/(supabase\/functions\/[^?]+|shared\/[^?]+|scripts\/[^?]+)$/.exec(url);
  return ours?.[1] ?? url;
}

function shortUrl(url: string): string {
  return url.replace(/^.*\/(node_modules\/\.deno\/|supabase\/functions\/|shared\/|scripts\/)/, "$1")
    .replace(/^node_modules\/\.deno\//, "");
}

/** CPU seconds (user + system) a process has used, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100;

/** Processes whose command line contains every given word (Postgres backends name their database). */
export function processesMatching(...words: string[]): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const command = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (words.every((w) => command.includes(w))) pids.push(Number(entry.name));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}
