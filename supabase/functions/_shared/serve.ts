import { openEarly } from "./db/pool.ts";
import type { EndpointHandler } from "./endpoint.ts";

const captureKey = Symbol.for("rpg-builder.capture-function");

type Capture = (handler: EndpointHandler) => void;

/**
 * Serves a function: on the hosted platform (and `supabase functions serve`) through `Deno.serve`,
 * its first database connection opening at once (the request that started the instance waits for
 * it); inside the local server, which imports every function into one process, by handing the
 * handler over instead of opening a port per function.
 */
export function serve(handler: EndpointHandler): void {
  const capture = (globalThis as { [captureKey]?: Capture })[captureKey];
  if (capture) return capture(handler);
  Deno.serve(handler);
  if (handler.usesDatabase) openEarly();
}

/** Imports a function module and returns the handler it serves, without opening a port. */
export async function loadFunction(moduleUrl: URL): Promise<EndpointHandler> {
  let captured: EndpointHandler | undefined;
  const slot = globalThis as { [captureKey]?: Capture };
  slot[captureKey] = (handler) => (captured = handler);
  try {
    await import(moduleUrl.href);
  } finally {
    delete slot[captureKey];
  }
  if (!captured) throw new Error(`Function module served nothing: ${moduleUrl.pathname}`);
  return captured;
}
