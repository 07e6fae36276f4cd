/**
 * Injection: SQL fragments, JSON paths, LIKE wildcards, backslashes and NUL in every text filter
 * (the `name` of every find endpoint, the text fields of search-data) are plain text to match.
 */
import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { listFunctionNames } from "../scripts/server/server.ts";
import { withLiteralValues } from "../supabase/functions/_shared/db/postgres_js_workarounds.ts";
import {
  adminSql,
  call,
  type CallResult,
  freshToken,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

/** Strings that would change a query's meaning if they reached it as anything but a value. */
const HOSTILE = [
  "%",
  "_",
  "%%",
  "a%",
  "%a%",
  "\\",
  "\\%",
  "\\_",
  "*",
  ".*",
  "' or '1'='1",
  "'; drop table public.spell; --",
  '") or true --',
  "1) or (1=1",
  "$1",
  "$.name",
  "$..*",
  '{"$gt": ""}',
  "|| 'x'",
  "::text",
  "/* comment */",
  "a\u0000b",
  "E'\\x41'",
  '"quoted"',
  "-a",
];

/** The literal names created in the caller's own source; `_`, `%` and `\` must match only these. */
const LITERAL = ["a_b", "axb", "a%b", "a\\b", "a\\\\b", "O'Brien"];

/** A text filter answered without a server error: a success, or a fail that names the input. */
function answered(res: CallResult, what: string): void {
  ok(res.status < 500, `${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  ok(
    res.body?.status === "success" || res.body?.status === "fail",
    `${what}: ${JSON.stringify(res.body)}`,
  );
}

/** Rows in a find answer (an array, one object, or null). */
function rows(res: CallResult): { id: number; name: string }[] {
  const data = res.body?.data;
  if (res.body?.status !== "success" || data === null) return [];
  return Array.isArray(data) ? data : [data];
}

async function spellCount(): Promise<number> {
  const [row] = await adminSql<{ n: number }[]>`select count(*)::int as n from public.spell`;
  return row?.n ?? -1;
}

/** A homebrew source holding spells with the literal names, for positive checks. */
async function literalSpells(): Promise<
  { user: TestUser; sourceId: number; ids: Map<string, number> }
> {
  const user = await makeUser({ tier: 2 });
  const source = successData(
    await call("create-content-source", { name: "Literal names" }, { token: user.access_token }),
  );
  const ids = new Map<string, number>();
  for (const name of LITERAL) {
    const spell = successData(
      await call("create-spell", {
        content_source_id: source.id,
        name,
        rank: 1,
        description: `lit ${name} desc`,
        range: `lit ${name} range`,
        duration: `lit ${name} duration`,
      }, { token: user.access_token }),
    );
    ids.set(name, spell.id);
  }
  return { user, sourceId: source.id, ids };
}

/** Find endpoints whose declared body (in the OpenAPI document) has a `name` filter. */
async function findersWithName(): Promise<string[]> {
  // deno-lint-ignore no-explicit-any -- the document is walked by key
  const doc: any = JSON.parse(
    await Deno.readTextFile(new URL("../openapi.json", import.meta.url)),
  );
  const finders: string[] = [];
  for (const fn of (await listFunctionNames()).filter((n) => n.startsWith("find-"))) {
    let schema = doc.paths?.[`/${fn}`]?.post?.requestBody?.content?.["application/json"]?.schema;
    for (let hops = 0; typeof schema?.$ref === "string" && hops < 10; hops++) {
      schema = doc.components?.schemas?.[schema.$ref.split("/").at(-1)];
    }
    if (schema?.properties?.name) finders.push(fn);
  }
  return finders;
}

test("every find endpoint's name filter matches hostile strings only as literal text", async () => {
  const user = await makeUser({ tier: 2 });
  const before = await spellCount();
  const finders = await findersWithName();
  ok(finders.includes("find-spell") && finders.includes("find-item"), finders.join(", "));
  for (const fn of finders) {
    const token = await freshToken(user);
    for (const name of HOSTILE) {
      const res = await call(fn, { name }, { token });
      answered(res, `${fn} ${JSON.stringify(name)}`);
      // An exact name nobody has matches nothing; a name part only names that hold it as text.
      const strays = rows(res).filter((row: { name: string }) =>
        !row.name.toLowerCase().includes(name.toLowerCase())
      );
      deepStrictEqual(strays, [], `${fn} ${JSON.stringify(name)} matched rows without it`);
    }
  }
  equal(await spellCount(), before, "no statement ran that changed the spells");
});

test("find-spell name: %, _ and backslashes match only rows named with them", async () => {
  const { user, sourceId, ids } = await literalSpells();
  const token = await freshToken(user);
  const found = async (name: string) =>
    rows(await call("find-spell", { name, content_sources: [sourceId] }, { token })).map((r) =>
      r.name
    ).sort();
  for (const name of LITERAL) deepStrictEqual(await found(name), [name], `name ${name}`);
  deepStrictEqual(await found("A_B"), ["a_b"], "case-insensitive, still literal");
  for (const name of ["a%", "%b", "a__", "%", "_", "a\\%b", "o'brien%"]) {
    deepStrictEqual(await found(name), [], `name ${name}`);
  }
  ok(ids.size === LITERAL.length);
});

test("search-data text filters treat %, _, backslashes, quotes and NUL as text", async () => {
  const { user, sourceId } = await literalSpells();
  const token = await freshToken(user);
  const advanced = async (field: string, value: string) => {
    const res = await call("search-data", {
      is_advanced: true,
      type: "spell",
      content_sources: [sourceId],
      [field]: value,
    }, { token });
    answered(res, `search-data ${field} ${JSON.stringify(value)}`);
    return rows({ ...res, body: { ...res.body, data: res.body?.data?.spells ?? [] } }).map((r) =>
      r.name
    ).sort();
  };
  for (const field of ["name", "description", "range", "duration"]) {
    // `_` and `%` inside a word are characters to find, not wildcards.
    deepStrictEqual(await advanced(field, "a_b"), ["a_b"], `${field} a_b`);
    deepStrictEqual(await advanced(field, "a%b"), ["a%b"], `${field} a%b`);
    deepStrictEqual(await advanced(field, "O'Brien"), ["O'Brien"], `${field} O'Brien`);
    ok((await advanced(field, "a\\b")).includes("a\\b"), `${field} a\\b`);
    for (const value of HOSTILE) {
      const names = await advanced(field, value);
      ok(
        names.every((n) => LITERAL.includes(n)),
        `${field} ${JSON.stringify(value)} matched ${names.join(", ")}`,
      );
    }
  }
  // Simple mode and the exact-match filters answer too, without server errors.
  const before = await spellCount();
  for (const value of HOSTILE) {
    answered(
      await call("search-data", { text: value }, { token }),
      `text ${JSON.stringify(value)}`,
    );
    for (const field of ["cast", "bulk", "hands", "cost", "trigger", "requirements", "frequency"]) {
      answered(
        await call("search-data", { is_advanced: true, type: "ability-block", [field]: value }, {
          token: await freshToken(user),
        }),
        `${field} ${JSON.stringify(value)}`,
      );
    }
    answered(
      await call("search-data", { is_advanced: true, type: "spell", traditions: [value] }, {
        token,
      }),
      `traditions ${JSON.stringify(value)}`,
    );
    answered(
      await call("search-data", {
        is_advanced: true,
        type: "ability-block",
        prerequisites: [value],
      }, {
        token,
      }),
      `prerequisites ${JSON.stringify(value)}`,
    );
  }
  equal(await spellCount(), before);
});

// Unprepared pools write values into the statement text (postgres_js_workarounds.ts): each hostile string,
// in every position a statement can take one, must come back from Postgres exactly as sent.
test("literal values: hostile text, arrays and JSON come back from Postgres exactly as sent", async () => {
  const sql = withLiteralValues(adminSql, false);
  const texts = [...HOSTILE.filter((v) => !v.includes("\0")), ...LITERAL, "", "naïve ✓ 🐉"];
  for (const value of texts) {
    const [tagged] = await sql<{ v: string }[]>`select ${value}::text as v`;
    equal(tagged?.v, value, `tagged ${JSON.stringify(value)}`);
    const [unsafe] = await sql.unsafe<{ v: string; n: number }[]>(
      "select $1::text as v, $2::int as n",
      [value, 7],
    );
    deepStrictEqual(unsafe, { v: value, n: 7 }, `unsafe ${JSON.stringify(value)}`);
  }
  const document = { texts, nested: [1, "two"] };
  const [row] = await sql<
    { a: string[]; j: unknown; typed: unknown; ids: number[]; b: boolean; z: null }[]
  >`
    select ${texts}::text[] as a, ${JSON.stringify(document)}::jsonb as j,
      ${sql.json(document)} as typed,
      ${[3, 1, 2]}::bigint[] as ids, ${true} as b, ${null}::text as z`;
  deepStrictEqual(row, {
    a: texts,
    j: document,
    typed: document,
    ids: [3, 1, 2],
    b: true,
    z: null,
  });
  // Arrays come back whole: quoting, NULL and nesting.
  const awkward = ["NULL", null, "", "a,b", "{x}", ' "q" ', "\\"];
  const [arrays] = await sql<{ t: (string | null)[]; n: number[][]; e: number[] }[]>`
    select ${awkward}::text[] as t, array[[1, 2], [3, 4]]::bigint[] as n, '{}'::int[] as e`;
  deepStrictEqual(arrays, { t: awkward, n: [[1, 2], [3, 4]], e: [] });
  const helper = { v: "' or true --", n: 5 };
  const built = await sql<{ v: string; n: number }[]>`
    select v, n::int from (values ${sql(helper)}) t(v, n)`;
  deepStrictEqual([...built], [helper]);
  await rejects(
    async () => await sql`select ${"a\u0000b"}::text`,
    (e: { code?: string }) => e.code === "22021",
  );
});
