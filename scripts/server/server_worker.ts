/**
 * One of several server workers (`WORKERS`), started by `scripts/server/start.ts` as a Deno Worker after
 * the database is migrated. It serves every function on the shared port, tells the start when it
 * listens, and drains when told to stop.
 */
import { type ServedFunctions, serveFunctions } from "./server.ts";

/** What the start sends a worker. */
export type ToWorker = { type: "start"; port: number; worker: number } | { type: "close" };
/** What a worker answers. */
export type FromWorker = { type: "ready" } | { type: "closed" };

declare const self: {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
  close(): void;
};

let served: ServedFunctions | null = null;

self.onmessage = async ({ data }) => {
  if (data.type === "start") {
    served = await serveFunctions({ port: data.port, worker: data.worker });
    self.postMessage({ type: "ready" });
  } else {
    await served?.close();
    self.postMessage({ type: "closed" });
  }
};
