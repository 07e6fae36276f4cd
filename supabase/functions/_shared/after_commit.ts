import type { Tx } from "./db/pool.ts";

/** What an after-commit step may do: open new short transactions as the same caller. */
export interface AfterCommitContext {
  /** Runs `fn` in a new transaction as the request's caller; database errors map as usual. */
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;
}

/**
 * A handler result whose last step runs after its transaction commits, such as a call to another
 * service: the transaction is not held open across slow I/O, and a failed call cannot undo the
 * committed write. The step returns the response data.
 */
export class AfterCommit<T> {
  constructor(readonly step: (ctx: AfterCommitContext) => Promise<T>) {}
}

/** Returns from a handler to run `step` once its transaction has committed. */
export function afterCommit<T>(step: (ctx: AfterCommitContext) => Promise<T>): AfterCommit<T> {
  return new AfterCommit(step);
}
