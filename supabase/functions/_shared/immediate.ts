/**
 * `setImmediate` as Node means it (run once the current task and its microtasks are done, ahead of
 * timers), without the platform's delay. The platform's Deno 2.1 runs Node's `setImmediate` as a
 * timer of 0 ms, which its timers round to 1 ms or more (1.1-1.3 ms measured). postgres.js flushes
 * every write it buffers on `setImmediate`, and the database socket corks a pipeline for two turns
 * behind it (`database_socket.ts`): each statement sent waited about 4 ms, and a new connection
 * about 11 ms for the three writes of its start-up, where the database answered in 0.5 ms. Here a
 * turn is a message through a `MessageChannel` (about 0.1 ms): every immediate queued before it
 * arrives runs in it, in order, and those queued meanwhile wait for the next, as in Node. Unlike
 * Node, microtasks an immediate queues run after the whole turn, not before the next immediate.
 */

/** An immediate's handle, as `setImmediate` returns it. */
export class Immediate {
  cancelled = false;
  constructor(readonly run: () => void) {}
  // Node's handle can be unreferenced; a turn here never keeps a process alive past itself.
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
}

let queued: Immediate[] = [];
/** The channel turns are sent through while they keep coming; closed after a turn that queues none. */
let channel: MessageChannel | null = null;

function runTurn(): void {
  const turn = queued;
  queued = [];
  for (const immediate of turn) {
    if (immediate.cancelled) continue;
    try {
      immediate.run();
    } catch (e) {
      // The rest of the turn still runs; the error is uncaught, as a throwing immediate's is in Node.
      reportError(e);
    }
  }
  if (queued.length > 0) {
    channel!.port2.postMessage(null);
  } else {
    // A port that listens keeps the process alive: an idle one is closed, so that it may end.
    channel!.port1.close();
    channel!.port2.close();
    channel = null;
  }
}

function scheduleTurn(): void {
  if (channel !== null) return; // the turn running now sends the next
  channel = new MessageChannel();
  channel.port1.onmessage = runTurn;
  channel.port2.postMessage(null);
}

export function setImmediate<A extends unknown[]>(
  fn: (...args: A) => void,
  ...args: A
): Immediate {
  const immediate = new Immediate(() => fn(...args));
  if (queued.length === 0) scheduleTurn();
  queued.push(immediate);
  return immediate;
}

export function clearImmediate(immediate: unknown): void {
  if (immediate instanceof Immediate) immediate.cancelled = true;
}

/**
 * Makes these the `setImmediate` and `clearImmediate` npm packages see (postgres.js names them as
 * globals). Installed by the database pool before any connection opens.
 */
export function installImmediate(): void {
  Object.assign(globalThis, { setImmediate, clearImmediate });
}
