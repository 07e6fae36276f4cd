// Release 1.0.0's migrations are applied on deployed databases, and `supabase db push` never runs
// an applied file again: an edit to one would reach fresh databases only. Each released file is
// held to its content here; a schema change is a new file.
import { equal } from "node:assert/strict";
import { sha256Hex } from "../supabase/functions/_shared/sha256.ts";

/** Every migration of release 1.0.0 and the SHA-256 of its text. */
const RELEASED: Record<string, string> = {
  "20261122000100_platform.sql": "cc1354e12f2fec596848e2e9b968545ffff152b106d9a5b33231fa12a3369fe9",
  "20261122000200_accounts.sql": "8bb8598e7b93440620394cb8dc9695109708f4736186c210503568fdcac00c6b",
  "20261122000300_content.sql": "abde839e986a63e72b2f0205753a41d330e49f70054cc63530d1e1f486379df5",
  "20261122000400_play.sql": "422bfbc1b8f844e05dbfecddc86420b7019729c393b00cec12d5865e1fadc1bd",
  "20261122000500_moderation.sql":
    "8d36b2212297416df41ba2f863982b12fb5e844827fa10d2936e7712a88aeb4f",
  "20261122000600_search.sql": "16620f9a2c1a56e046701b1d24464e715571ce2776827c153d3a318400569828",
  "20261126000800_play.sql": "7ec238d1eedd96e34924a73a71b50a4f7037304b3ffd1448400f0e5a6437ab75",
  "20261126000900_content.sql": "8f27baff1b76b5e5eac1efa40554078cdcb868eed3e8440781990bbf6e3b3c8d",
};

const migrations = new URL("../supabase/migrations/", import.meta.url);

for (const [file, hash] of Object.entries(RELEASED)) {
  Deno.test(`released migration ${file} is unchanged`, async () => {
    equal(sha256Hex(await Deno.readFile(new URL(file, migrations))), hash);
  });
}

Deno.test("new migrations sort after every released one", async () => {
  const last = Object.keys(RELEASED).sort().at(-1)!;
  for await (const entry of Deno.readDir(migrations)) {
    if (!entry.name.endsWith(".sql") || entry.name in RELEASED) continue;
    equal(entry.name > last, true, `${entry.name} sorts before the released ${last}`);
  }
});
