/** What an endpoint declares: its contract entry and its server side, and what a handler receives. */
import type { z } from "zod";
import type postgres from "postgres";
import type { EndpointName } from "@shared/contract.ts";
import type { AuthKind, EndpointContract } from "@shared/contract/entry.ts";
import type { Identity } from "./auth/identity.ts";
import type { ReadStatement } from "./db/as_caller.ts";
import type { Tx } from "./db/pool.ts";
import type { AfterCommit } from "./after_commit.ts";
import type { RowStream } from "./row_stream.ts";

export type { AuthKind };

/** What a handler receives. */
export interface HandlerContext<B> {
  body: B;
  /**
   * The kind of caller only: which user a request acts for is known to the database
   * (`auth.uid()`), which resolves API keys itself; handlers ask it rather than carry a copy.
   */
  caller: Pick<Identity, "kind">;
  requestId: string;
  /** The client's address as the rate limiter saw it. */
  clientIp: string;
}

/** What a handler with database access receives: its transaction runs as the caller. */
export interface DbHandlerContext<B> extends HandlerContext<B> {
  tx: Tx;
}

/** What a function with database access declares besides its contract entry. */
export interface DbServerSide<S extends z.ZodType, R extends z.ZodType> {
  /**
   * For character endpoints: the character an API-key call targets. A single id needs a grant for
   * the key's client and runs as the character's owner; otherwise row-level policies admit only
   * granted characters.
   */
  characterGrant?: (body: z.output<S>) => number | undefined;
  /**
   * The handler: it sends all its statements before it awaits an answer, and its transaction
   * commits right behind them (a decision that needs an answer first belongs in SQL). It may return
   * `afterCommit(step)` to finish after its transaction commits. An entry whose effect is `read`
   * runs in a read-only transaction (Postgres refuses any write in it). An endpoint declares this
   * or `stream`, `read`, or `read` with one of them (`read` for the bodies its `when` names).
   */
  run?: (ctx: DbHandlerContext<z.output<S>>) => Promise<z.input<R> | AfterCommit<z.input<R>>>;
  /**
   * A find whose answer may be too long to hold: it returns its rows, or a `RowStream` that sends
   * them while its read-only transaction stays open, and commits once the answer is whole.
   */
  stream?: (ctx: DbHandlerContext<z.output<S>>) => Promise<z.input<R> | RowStream>;
  /**
   * For a handler that is one read statement: that statement and how its rows become the result,
   * sent with its transaction's opener and COMMIT in one round trip.
   */
  read?: OneRead<S, R>;
  /**
   * `run` acts outside the database (a file written to Storage), which no rollback undoes: it
   * starts only once the caller is known to be within budget, never while the budget is checked,
   * and its transaction waits for it to finish.
   */
  actsOutsideDatabase?: boolean;
  /**
   * Whether an answer of `run` reports work done. Under an Idempotency-Key, one that does not (a
   * refusal the contract answers as data) rolls back its transaction with the key's claim, so the
   * same request with the same key may do its work once it can. Absent, every answer reports work.
   */
  didWork?: (result: z.input<R>) => boolean;
}

/** A handler that is one read statement (see `DbServerSide.read`). */
export interface OneRead<S extends z.ZodType, R extends z.ZodType> {
  /** The bodies this read serves; all of them when absent. */
  when?: (body: z.output<S>) => boolean;
  statement: (body: z.output<S>) => ReadStatement;
  result: (rows: postgres.Row[], body: z.output<S>) => z.input<R>;
}

/** What a function that touches no database declares besides its contract entry. */
export interface PlainServerSide<S extends z.ZodType, R extends z.ZodType> {
  run: (ctx: HandlerContext<z.output<S>>) => Promise<z.input<R>>;
}

/**
 * The server side of a contract entry: a plain handler when the entry says `database: false`, and
 * a character grant target when it says `perCharacter`.
 */
export type ServerSide<E extends EndpointContract> = [E] extends [{ database: false }]
  ? PlainServerSide<E["body"], E["result"]>
  : [E] extends [{ perCharacter: true }] ?
      & DbServerSide<E["body"], E["result"]>
      & Required<Pick<DbServerSide<E["body"], E["result"]>, "characterGrant">>
  : Omit<DbServerSide<E["body"], E["result"]>, "characterGrant">;

/** An endpoint whose handler runs in a transaction as the caller: its contract and server side. */
export type DbEndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  & EndpointContract<S, R>
  & DbServerSide<S, R>
  & { database?: undefined };

/** An endpoint that touches no database. */
export type PlainEndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  & EndpointContract<S, R>
  & PlainServerSide<S, R>
  & { database: false };

/** Any endpoint declaration. */
export type EndpointSpec<S extends z.ZodType, R extends z.ZodType> =
  | DbEndpointSpec<S, R>
  | PlainEndpointSpec<S, R>;

/** A request handler as `Deno.serve` takes it, with its endpoint's name and database use. */
export type EndpointHandler =
  & ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>)
  & { endpoint: EndpointName; usesDatabase: boolean };
