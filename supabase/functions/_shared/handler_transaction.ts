/**
 * A request's transactions as its caller: an API key's standing learned from them, a database
 * handler run in one (with its Idempotency-Key's claim and answer, and its budget check when the
 * database keeps the count), and its after-commit step.
 */
import type { z } from "zod";
import { noteRefused, noteResolved } from "./auth/api_key_standing.ts";
import type { UsableCredential } from "./auth/credential.ts";
import type { Identity } from "./auth/identity.ts";
import {
  asCaller,
  type CallerTransactionOptions,
  ONE_ROUND_TRIP_READ,
  readStatement,
} from "./db/as_caller.ts";
import type { Tx } from "./db/pool.ts";
import type { SendAhead } from "./db/transaction.ts";
import { AfterCommit } from "./after_commit.ts";
import { RowStream } from "./row_stream.ts";
import { mapDatabaseError } from "./db_errors.ts";
import { Fail, successBody } from "./envelope.ts";
import { rateLimitHeaders } from "./rate_limit/buckets.ts";
import { countRequest, type Verdict } from "./rate_limit/verdict.ts";
import { assertWithinBudget } from "./rate_limit/database_window.ts";
import { refusals } from "./refusals.ts";
import { checkedResult } from "./validation.ts";
import { claimKey, type IdempotentRequest, rememberAnswer } from "./idempotency.ts";
import type { DbEndpointSpec, HandlerContext } from "./endpoint_spec.ts";

/**
 * Resolves an API key in a transaction of its own: for an endpoint without database work, and to
 * report an unknown key before a bad body. Other credentials need no lookup.
 */
export async function confirmApiKey(credential: UsableCredential, verdict: Verdict): Promise<void> {
  if (credential.kind === "api_key") await transactionAs(credential, verdict, async () => {});
}

/**
 * Runs `fn` in a transaction as the request's caller: every transaction of a request starts here.
 * It is also the one place an API key's standing is learned: what the database said about the key
 * picks the buckets of later requests, and a refused key spends one request of its address's
 * budget, and is a 429 when that budget is gone.
 */
async function transactionAs<T>(
  credential: UsableCredential,
  verdict: Verdict,
  fn: (tx: Tx) => Promise<T>,
  callerOptions: CallerTransactionOptions = {},
): Promise<{ value: T; actedAs: Identity }> {
  // The count travels ahead of the transaction when the database keeps it.
  const options = { ...callerOptions, ahead: (send: SendAhead) => verdict.sendAhead(send) };
  if (credential.kind !== "api_key") return await asCaller(credential, fn, options);
  try {
    const done = await asCaller(credential, fn, options);
    noteResolved(credential.keyHash);
    return done;
  } catch (e) {
    // PT401 comes only from the key lookup that opens the transaction.
    const refusal = (e as { code?: unknown })?.code === "PT401" ? mapDatabaseError(e) : null;
    if (!(refusal instanceof Fail)) throw e;
    noteRefused(credential.keyHash, refusal);
    if (credential.chargeOnRefusal === null) throw e;
    const window = await countRequest(
      { kind: "ip", identifier: credential.chargeOnRefusal },
      verdict.store,
    );
    if (!window.success) throw refusals.rateLimited(rateLimitHeaders(window));
    // An unrecognized key is answered with the budget it was charged against: its address's.
    throw new Fail(refusal.message, refusal.httpStatus, refusal.data, {
      ...refusal.headers,
      ...rateLimitHeaders(window),
    });
  }
}

/** A keyed request's answer that reports no work: thrown to roll back its key's claim. */
class NothingDone {
  constructor(readonly answer: unknown) {}
}

/**
 * Runs a database handler in one transaction as its caller. For an API key the database resolves
 * the key, and the character grant when the endpoint names one, in the statement that opens the
 * transaction (`asCaller`), so an API-key request costs one transaction and no extra round trip.
 */
export async function runInTransaction<S extends z.ZodType, R extends z.ZodType>(
  spec: DbEndpointSpec<S, R>,
  base: Omit<HandlerContext<z.output<S>>, "caller">,
  credential: UsableCredential,
  retryable: IdempotentRequest | null,
  verdict: Verdict,
): Promise<unknown> {
  const read = spec.read;
  if (read && (read.when?.(base.body) ?? true)) {
    const statement = read.statement(base.body);
    const { value: rows } = await transactionAs(
      credential,
      verdict,
      (tx) => readStatement(tx, statement),
      ONE_ROUND_TRIP_READ,
    );
    return read.result(rows, base.body);
  }
  const run = spec.run ?? spec.stream;
  if (!run) throw new Error("An endpoint without `run` or `stream` must read every body it takes");
  const caller = { kind: credential.kind };
  type Outcome = z.input<R> | AfterCommit<z.input<R>> | RowStream;
  const work = (tx: Tx): Promise<Outcome> => run({ ...base, caller, tx });
  // With an Idempotency-Key, the key is claimed and the answer kept in the same transaction.
  let answered: unknown = null;
  const handle = retryable === null ? work : async (tx: Tx): Promise<Outcome> => {
    // The work is sent right behind the claim, without waiting for it: both go in one round trip,
    // and when the claim finds an earlier request the work is rolled back with the transaction.
    const claimed = claimKey(tx, retryable);
    const working = work(tx);
    working.catch(() => {}); // the claim's refusal, when there is one, is the answer
    try {
      await claimed;
    } catch (refusal) {
      // The work goes on sending statements until it finishes: they must all land in this
      // transaction, which the refusal then rolls back, not after it.
      await working.catch(() => {});
      throw refusal;
    }
    const outcome = await working;
    if (outcome instanceof AfterCommit || outcome instanceof RowStream) return outcome;
    const checked = checkedResult(spec.result, outcome) as z.input<R>;
    if (spec.didWork?.(checked) === false) throw new NothingDone(checked);
    answered = successBody(checked); // kept with the COMMIT (`withCommit`)
    return checked;
  };
  const characterId = spec.characterGrant?.(base.body) ?? null;
  const readOnly = spec.effect === "read";
  // A stream's transaction stays open; a keyed request's answer is kept right before its COMMIT
  // (`withCommit`).
  const commitAhead = spec.stream === undefined && retryable === null &&
    spec.actsOutsideDatabase !== true;
  // A refused write must not run. When its count travels ahead of its BEGIN, its first statement
  // refuses it if the count did; otherwise (Upstash) it starts once the verdict is known. A read
  // is answered once the verdict is.
  const guarded = !readOnly && verdict.keepsVerdictForWrite();
  if (!readOnly && !guarded) await verdict.headers();
  const withinBudget = !guarded ? handle : (tx: Tx): Promise<Outcome> => {
    assertWithinBudget(tx, base.requestId);
    return handle(tx);
  };
  const ran = await transactionAs(credential, verdict, withinBudget, {
    characterId,
    commitAhead,
    readOnly,
    withCommit: retryable === null
      ? undefined
      : (tx) => answered === null ? null : rememberAnswer(tx, retryable, 200, answered),
  }).catch((e: unknown) => {
    if (e instanceof NothingDone) return e;
    throw e;
  });
  if (ran instanceof NothingDone) return ran.answer;
  const { value: outcome, actedAs } = ran;
  if (!(outcome instanceof AfterCommit)) return outcome;
  const same = async <T>(fn: (tx: Tx) => Promise<T>) => (await asCaller(actedAs, fn)).value;
  const final = await outcome.step({ transaction: same });
  if (retryable === null) return final;
  // The answer came after the commit: kept now if it can be. The caller may be gone (delete-user)
  // or the database away; the answer stands either way, and a repeat of the key is then told that
  // the first request's outcome is unknown (`claimKey`), never given the work a second time.
  const checked = checkedResult(spec.result, final);
  await same(async (tx) => await rememberAnswer(tx, retryable, 200, successBody(checked)))
    .catch(() => {});
  return checked;
}
