import { openEarly } from "./db/pool.ts";

/** A function's request handler as `Deno.serve` takes it, and whether it uses the database. */
export type FunctionHandler =
  & ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>)
  & { usesDatabase: boolean };

/**
 * Serves a function through `Deno.serve`, its first database connection opening at once (the
 * request that started the instance waits for it).
 */
export function serve(handler: FunctionHandler): void {
  Deno.serve(handler);
  if (handler.usesDatabase) openEarly();
}
