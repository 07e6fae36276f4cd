/**
 * Copying between two TCP connections, for the test and benchmark proxies that stand between a
 * server and its database.
 */

/**
 * Copies `from` to `to` until `from` ends or either side fails. `seen` is told of every chunk
 * before it is written, and may hold it back (a delay) or drop the connection (by answering false).
 */
export async function relayBytes(
  from: Deno.Conn,
  to: Deno.Conn,
  seen: (n: number) => boolean | void | Promise<boolean | void> = () => {},
): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null || (await seen(n)) === false) return;
      let written = 0;
      while (written < n) written += await to.write(buffer.subarray(written, n));
    }
  } catch {
    // either side went away
  }
}
