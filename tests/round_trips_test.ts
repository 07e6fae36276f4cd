/**
 * Database round trips per request kind, counted by a proxy between a server subprocess and the
 * real Postgres (`deno task bench:round-trips` prints the whole table). Round trips are
 * deterministic, so the ones the design promises are asserted, with prepared statements and
 * without (values then written in as literals): every read and write is one, a keyed write two.
 * The server has no Upstash store: the rate limiter's count goes ahead of BEGIN, in the same write,
 * and a write's first statement refuses it if the count did. Real-services run only.
 */
import { equal, ok } from "node:assert/strict";
import { countRoundTrips } from "../scripts/bench/round_trips.ts";
import { realPostgresUrl } from "./support/test_database.ts";

for (const prepare of [true, false]) {
  Deno.test({
    name:
      `round trips: every read and single-record write answers after one, a keyed write after two (prepared statements ${
        prepare ? "on" : "off, as behind the hosted pooler"
      })`,
    ignore: realPostgresUrl() === null,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      // The real Postgres the suite was started with: hosted, this process's DATABASE_URL is the
      // emulated project's, whose owner may not end other sessions.
      const counted = await countRoundTrips(prepare, realPostgresUrl()!);
      const beforeAnswer = new Map(counted.map((r) => [r.label, r.beforeAnswer]));
      const expected: Record<string, number> = {
        "find-spell by id, JWT": 1,
        "find-spell by id, API key": 1,
        "search-data": 1,
        "create-character": 1,
        "update-character": 1,
        "create-spell": 1,
        "create-spell, update": 1,
        "create-content-source": 1,
        "create-content-source, update": 1,
        "delete-content (spell)": 1,
        // A check sent with the work it names the refusal of, in the same write.
        "grant-character-access": 1,
        "find-character-access": 1,
        "revoke-character-access": 1,
        "reset-campaign-key": 1,
        "create-campaign, update": 1,
        // Statements that need no answer of one another, sent together.
        "get-user (own)": 1,
        "get-content-source-stats": 1,
        "find-character by id": 1,
        "create-campaign": 1,
        "find-campaign by id": 1,
        "create-encounter": 1,
        "find-encounter": 1,
        "get-user (another's)": 1,
        "update-user": 1,
        "create-api-client": 1,
        "find-api-client": 1,
        "get-content-versions": 1,
        "find-content-update": 1,
        "create-content-update": 1,
        "gm-users-in-group": 1,
        "get-api-client-info": 1,
        "unlock-content-source": 1,
        "vector-db-query-collection": 1,
        "vector-db-populate-collection": 1,
        "delete-user": 1,
        // The cursor's first batch: the rows fit it, so the answer is whole.
        "find-spell {} (official)": 1,
        // The count with the claim and the work, then the answer kept with the COMMIT.
        "create-character, Idempotency-Key": 2,
      };
      for (const [label, count] of Object.entries(expected)) {
        equal(beforeAnswer.get(label), count, `${label}: ${JSON.stringify(counted)}`);
      }
      // Its read-only COMMIT follows the answer, and its connection goes back once it is done.
      const find = counted.find((r) => r.label === "find-spell {} (official)");
      equal(find?.counts.roundTrips, 2, JSON.stringify(find));
      for (const { label, status } of counted) {
        if (label in expected) equal(status, "200 success", label);
      }
      if (!prepare) {
        // Behind the pooler a new connection is paid often (instances come and go): its start-up
        // and then the request's one round trip, without postgres.js's fetch of every array type.
        const fresh = counted.find((r) => r.label === "find-spell by id, new connection");
        equal(fresh?.status, "200 success");
        equal(fresh?.counts.roundTrips, 2, JSON.stringify(fresh));
        ok((fresh?.counts.bytesIn ?? Infinity) <= 2_048, JSON.stringify(fresh));
      }
    },
  });
}
