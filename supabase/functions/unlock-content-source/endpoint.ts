import { contentEndpoints } from "@shared/contract/content.ts";
import { afterCommit } from "../_shared/after_commit.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { contentTable } from "../_shared/content/tables.ts";
import { contentSourceType } from "@shared/content/content_source.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { env } from "../_shared/env.ts";
import { fail } from "../_shared/envelope.ts";

const sources = contentTable(contentSourceType);

export const handler = endpoint(contentEndpoints, "unlock-content-source", {
  run: async ({ body, tx, clientIp }) => {
    // Wrong keys are counted per user and per client address (the database decides); an address
    // that is not the caller's own (hosted without TRUST_PROXY, every caller shows the runtime's)
    // is not counted, or one guesser would lock everyone out.
    const trusted = (env.TRUST_PROXY || !env.SUPABASE_URL) && clientIp !== "unknown";
    const address = trusted ? clientIp : null;
    const unlocking = tx<{ outcome: "unlocked" | "invalid" }[]>`
      select private.unlock_content_source(${body.id}, ${body.access_key}, ${address}) as outcome`;
    // Read after the unlock, in the same transaction: it sees the source the unlock opened.
    const reading = findContent(tx, sources, { id: body.id });
    const [[entered], [source]] = await Promise.all([unlocking, reading]);
    // A wrong key is answered after commit, so the failure the throttle counts is kept.
    if (entered?.outcome !== "unlocked") {
      return afterCommit(() => Promise.reject(fail("Invalid access key")));
    }
    if (!source) throw fail("Content source not found");
    return source;
  },
});
