/**
 * Database round trips per request kind, counted by a proxy between a server subprocess and the
 * real Postgres (`deno task bench:round-trips` prints the whole table). Round trips are
 * deterministic, so the ones the design promises are asserted: a read by id is one, and so is a
 * write of one statement declared as such (`oneStatement`: creating and updating a character).
 * Real-services run only.
 */
import { equal } from "node:assert/strict";
import { countRoundTrips } from "../scripts/bench/round_trips.ts";
import { realPostgresUrl } from "./support/test_database.ts";

Deno.test({
  name: "round trips: a read by id is one, a one-statement write one (prepared statements on)",
  ignore: realPostgresUrl() === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const counted = new Map(
      (await countRoundTrips(true)).map((r) => [r.label, r.counts?.roundTrips]),
    );
    const expected: Record<string, number> = {
      "find-spell by id, JWT": 1,
      "find-spell by id, API key": 1,
      "create-character": 1,
      "update-character": 1,
    };
    for (const [label, roundTrips] of Object.entries(expected)) {
      equal(counted.get(label), roundTrips, `${label}: ${JSON.stringify([...counted])}`);
    }
  },
});
