/** A response as the fault tests and the benchmark read it. */
export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any -- tests read arbitrary fields of JSend bodies
  body: any;
  /** Wall time of the call in milliseconds. */
  ms: number;
}

/** Options of a `post`. */
export interface PostOptions {
  token?: string;
  /** The client address the call comes from (see `fetchFrom`). */
  ip?: string;
  /** Abort after this long (default 30 s). */
  timeoutMs?: number;
  /** A raw body instead of JSON. */
  raw?: BodyInit;
  /** More headers. */
  headers?: Record<string, string>;
}

/** POSTs JSON to `<functionsUrl>/<fn>` and parses the JSON answer. */
export async function post(
  functionsUrl: string,
  fn: string,
  body: unknown = {},
  options: PostOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  Object.assign(headers, options.headers);
  const started = performance.now();
  const res = await (options.ip ? fetchFrom(options.ip) : fetch)(`${functionsUrl}/${fn}`, {
    method: "POST",
    headers,
    body: options.raw ?? JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { unparsed: text };
  }
  return {
    status: res.status,
    headers: res.headers,
    body: parsed,
    ms: performance.now() - started,
  };
}

/**
 * A random client address of the loopback network (127.1.0.1 to 127.254.255.254, never 127.0.0.1,
 * which every other local caller shares), so each caller has its own per-IP budget.
 */
export function randomIp(): string {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return `127.${1 + b[0]! % 254}.${b[1]}.${1 + b[2]! % 254}`;
}

/**
 * fetch() from the client address `ip` (one of the loopback network, see `randomIp`): the
 * connection is opened from it, so a server sees it as the peer's address, as it sees a real
 * client's, with no proxy header for it to trust. Each call has a connection of its own.
 */
export function fetchFrom(ip: string): typeof fetch {
  return async (input, init) => {
    const client = Deno.createHttpClient({ localAddress: ip });
    try {
      return await fetch(input, { ...init, client });
    } finally {
      // The response stays readable to its end; its connection then closes.
      client.close();
    }
  };
}

/**
 * Waits, when fewer than `neededMs` are left in the current minute, until the next one begins: a
 * sliding window weighs the previous minute less as time passes, so a budget spent across a minute
 * boundary admits a few more calls, and a test that counts exactly must stay within one minute.
 */
export async function withinOneMinute(neededMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
