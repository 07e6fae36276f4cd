/** The outcome of one request against a sliding window. `reset` is epoch milliseconds. */
export interface WindowResult {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

/** A sliding-window limiter for one bucket kind. */
export interface WindowLimiter {
  limit(identifier: string): Promise<WindowResult>;
}
