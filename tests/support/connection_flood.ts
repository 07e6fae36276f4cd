/**
 * Hostile connections against a running server: many sockets opened and left idle, or uploads that
 * send their headers and a few bytes of body, then stall. Reports how the server answered each
 * (503 at the cap, 400 for a late body, closed by a timeout) and the server's memory.
 */

/** How one hostile connection ended. */
export type Outcome = "refused" | "answered" | "closed" | "failed" | "open";

/** What a flood saw. */
export interface FloodReport {
  opened: number;
  outcomes: Record<Outcome, number>;
  /** Answers' status lines, counted. */
  statuses: Record<string, number>;
  /** Seconds from the start until the last connection ended (or the wait ran out). */
  seconds: number;
  /** Milliseconds from the start until the last connection was opened. */
  openingMs: number;
  /** The server's RSS in MB before, at its highest while sampled, and after. */
  rssMb: { before: number; peak: number; after: number } | null;
}

/** The resident memory of a process in MB (Linux), or null. */
export async function rssMb(pid: number): Promise<number | null> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

/**
 * Opens `count` connections to `port` (a few hundred at a time), each idle or sending `head` and
 * stalling, and waits up to `waitMs` for the server to end them.
 */
export async function flood(options: {
  port: number;
  count: number;
  /** Sent on each connection before it stalls; nothing for an idle connection. */
  head?: string | undefined;
  waitMs: number;
  pid?: number | undefined;
}): Promise<FloodReport> {
  const started = Date.now();
  const outcomes: Record<Outcome, number> = {
    refused: 0,
    answered: 0,
    closed: 0,
    failed: 0,
    open: 0,
  };
  const statuses: Record<string, number> = {};
  const before = options.pid ? await rssMb(options.pid) : null;
  let peak = before ?? 0;
  const sampler = options.pid
    ? setInterval(async () => {
      peak = Math.max(peak, (await rssMb(options.pid!)) ?? 0);
    }, 250)
    : undefined;
  const conns: Deno.TcpConn[] = [];
  const endings: Promise<void>[] = [];
  const deadline = started + options.waitMs;

  const one = async (): Promise<void> => {
    let conn: Deno.TcpConn;
    try {
      conn = await Deno.connect({ hostname: "127.0.0.1", port: options.port });
    } catch {
      outcomes.failed++;
      return;
    }
    conns.push(conn);
    endings.push(watch(conn));
    if (options.head) await conn.write(new TextEncoder().encode(options.head)).catch(() => {});
  };
  const watch = async (conn: Deno.TcpConn): Promise<void> => {
    const buffer = new Uint8Array(1024);
    let text = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outOfTime = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
    });
    let timedOut = false;
    while (true) {
      const n = await Promise.race([
        conn.read(buffer).catch(() => null),
        outOfTime.then(() => (timedOut = true, null)),
      ]);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed
    }
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
    if (status) statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === "503") outcomes.refused++;
    else if (status) outcomes.answered++;
    else if (timedOut) outcomes.open++;
    else outcomes.closed++;
  };

  for (let i = 0; i < options.count; i += 250) {
    await Promise.all(Array.from({ length: Math.min(250, options.count - i) }, one));
  }
  const openingMs = Date.now() - started;
  await Promise.all(endings);
  clearInterval(sampler);
  const after = options.pid ? await rssMb(options.pid) : null;
  return {
    opened: conns.length,
    outcomes,
    statuses,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    openingMs,
    rssMb: before === null || after === null
      ? null
      : { before, peak: Math.max(peak, after), after },
  };
}

/** The head of a create-character upload that promises 100 bytes and sends 9. */
export function stalledUploadHead(token: string): string {
  return `POST /functions/v1/create-character HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
    `Content-Length: 100\r\n\r\n{"name":`;
}
