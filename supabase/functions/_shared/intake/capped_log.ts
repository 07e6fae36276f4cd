import { log } from "../log.ts";

/** Fields of one log line: flat facts only. */
export type LogFields = Record<string, string | number | boolean | null>;

/** Options of a capped log; every dependency is injectable so tests control time and output. */
export interface CappedLogOptions {
  /** Event name of each accepted line. */
  event: string;
  /** Event name of the per-window summary of dropped lines. */
  droppedEvent: string;
  /** Lines written per window; the rest are counted. */
  limit: number;
  /** Window length in milliseconds (fixed windows aligned to the epoch). */
  windowMs?: number;
  now?: () => number;
  write?: (event: string, fields: LogFields) => void;
  /** Runs `fn` after `delayMs`, without keeping the process alive. */
  schedule?: (fn: () => void, delayMs: number) => void;
}

function unrefTimeout(fn: () => void, delayMs: number): void {
  Deno.unrefTimer(setTimeout(fn, delayMs));
}

/**
 * A log that writes at most `limit` lines per fixed window and counts the rest; the count of a
 * window goes out as one summary line when the window ends (from a timer, or at the next line if
 * that comes first). Public intakes use it so that a flood of reports cannot flood the logs.
 */
export class CappedLog {
  readonly #options: Required<CappedLogOptions>;
  #windowStart: number;
  #written = 0;
  #dropped = 0;

  constructor(options: CappedLogOptions) {
    this.#options = {
      windowMs: 60_000,
      now: () => Date.now(),
      write: (event, fields) => log.info(event, fields),
      schedule: unrefTimeout,
      ...options,
    };
    this.#windowStart = this.#windowOf(this.#options.now());
  }

  /** Writes the line if this window has room, else counts it; returns whether it was written. */
  write(fields: LogFields): boolean {
    const now = this.#options.now();
    this.#roll(now);
    if (this.#written < this.#options.limit) {
      this.#written++;
      this.#options.write(this.#options.event, fields);
      return true;
    }
    this.#dropped++;
    if (this.#dropped === 1) {
      this.#options.schedule(() => this.flush(), this.#windowStart + this.#options.windowMs - now);
    }
    return false;
  }

  /** Writes the summary of a finished window that dropped lines; a no-op otherwise. */
  flush(): void {
    this.#roll(this.#options.now());
  }

  #roll(now: number): void {
    const windowStart = this.#windowOf(now);
    if (windowStart === this.#windowStart) return;
    if (this.#dropped > 0) {
      this.#options.write(this.#options.droppedEvent, {
        dropped: this.#dropped,
        window_start: new Date(this.#windowStart).toISOString(),
        window_ms: this.#options.windowMs,
      });
    }
    this.#windowStart = windowStart;
    this.#written = 0;
    this.#dropped = 0;
  }

  #windowOf(now: number): number {
    return Math.floor(now / this.#options.windowMs) * this.#options.windowMs;
  }
}
