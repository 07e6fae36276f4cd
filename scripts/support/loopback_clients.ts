/**
 * HTTP clients that connect from `count` addresses of the loopback network (127.1.0.1 on), each
 * keeping its connections, taken in turn: a benchmark's calls then come from many client
 * addresses, as the per-address budgets see real callers, without opening a connection per call.
 * Forwarding headers cannot stand in for them, since a caller cannot choose its address.
 */
export function loopbackClients(count: number): { next(): Deno.HttpClient; close(): void } {
  const clients = Array.from(
    { length: count },
    (_, i) =>
      Deno.createHttpClient({ localAddress: `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}` }),
  );
  let turn = 0;
  return {
    next: () => clients[turn++ % count]!,
    close: () => clients.forEach((client) => client.close()),
  };
}
