/**
 * One function instance as the hosted edge runtime starts it: its own process (isolate, module
 * state, database pool), on the platform's Deno, loading the function's own index.ts. Run by the
 * emulated gateway (gateway.ts) with only the environment the platform gives a function:
 *
 *   deno run --no-config --import-map supabase/functions/import_map.json … function_instance.ts \
 *     <function-name> <port>
 *
 * The runtime serves the function's `Deno.serve` handler on a port of its own choosing, offers no
 * Web Worker and reports its own version: all three are reproduced here before the function loads.
 */
const [name, port] = Deno.args;
if (!name || !/^[a-z0-9-]+$/.test(name) || !Number(port)) {
  console.error("usage: function_instance.ts <function-name> <port>");
  Deno.exit(2);
}

// The platform's user workers cannot start workers of their own.
Reflect.deleteProperty(globalThis, "Worker");

// The edge runtime names itself in Deno.version.deno, with the Deno it is compatible with, as its
// logs' `served_by` shows (1.74.2 is a release seen serving Deno 2.1).
Object.defineProperty(Deno, "version", {
  value: Object.freeze({
    ...Deno.version,
    deno: `supabase-edge-runtime-1.74.2 (compatible with Deno v${Deno.version.deno})`,
  }),
});

const serveOnPort = Deno.serve.bind(Deno);
let served = false;
// deno-lint-ignore no-explicit-any -- Deno.serve's overloads; the handler is passed through
(Deno as { serve: unknown }).serve = (...args: any[]) => {
  if (served) throw new Error(`${name} called Deno.serve twice`);
  served = true;
  const handler = args.find((a) => typeof a === "function") ??
    args.find((a) => typeof a?.handler === "function")?.handler;
  return serveOnPort({
    hostname: "127.0.0.1",
    port: Number(port),
    onListen: () => console.log(`listening ${name}`),
  }, handler);
};

await import(new URL(`../../supabase/functions/${name}/index.ts`, import.meta.url).href);
if (!served) {
  console.error(`${name} served nothing`);
  Deno.exit(1);
}
