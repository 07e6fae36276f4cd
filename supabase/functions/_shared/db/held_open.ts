/** Held transactions (`held_transaction.ts`): a handler's answer that reads on while it is sent. */
import type postgres from "postgres";
import { type Held, HELD_TRANSACTION_LIMIT_MS, type HeldTransaction } from "./held_transaction.ts";
import { type ConnectionWatch, guard } from "./connection_watch.ts";
import { TRANSACTION_DEADLINE_MS, type Tx } from "./pool.ts";

/** Hands a transaction over to its holder, which must `end` it (or it expires). */
export function holdOpen(
  reserved: postgres.ReservedSql,
  watch: ConnectionWatch,
  holder: Held,
): HeldTransaction {
  watch.stopDeadline();
  let working: Promise<unknown> = Promise.resolve();
  let ending: Promise<void> | null = null;
  const end = (commit: boolean): Promise<void> =>
    ending ??= (async () => {
      clearTimeout(limit);
      await working.catch(() => {});
      const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
      try {
        if (!watch.lost || commit) {
          await Promise.race([
            guard(reserved, watch).unsafe(commit ? "commit" : "rollback"),
            deadline,
          ])
            .catch((e) => {
              if (commit) throw watch.seen(e);
            });
        }
      } finally {
        watch.giveBack(reserved);
      }
    })();
  const limit = setTimeout(() => {
    end(false).catch(() => {});
    holder.expired();
  }, HELD_TRANSACTION_LIMIT_MS);
  return {
    work<R>(query: (tx: Tx) => Promise<R>): Promise<R> {
      if (ending) return Promise.reject(new Error("The held transaction has ended"));
      const run = (async () => {
        const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
        try {
          return await Promise.race([query(guard(reserved, watch)), deadline]);
        } catch (e) {
          throw watch.seen(e);
        } finally {
          watch.stopDeadline();
        }
      })();
      working = run;
      return run;
    },
    end,
  };
}
