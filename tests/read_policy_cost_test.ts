/**
 * The source policies cost the same however many content sources exist: each row read or written
 * is checked on its own source, found by primary key. Asked of the planner rather than timed: a policy that builds
 * the set of every readable source shows in the plan as a function over all sources (or a scan
 * of content_source), however fast the machine is.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import type postgres from "postgres";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";
import { adminSql, test } from "./_harness.ts";

class Undo extends Error {}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Function Name"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/**
 * Every node of a plan that reads sources other than by one primary-key lookup, or that calls the
 * rule instead of holding it.
 */
function sourceReadsBesidesLookups(node: PlanNode): string[] {
  const found: string[] = [];
  const lookup = (node["Node Type"] === "Index Scan" || node["Node Type"] === "Index Only Scan") &&
    node["Index Name"] === "content_source_pkey";
  if (node["Relation Name"] === "content_source" && !lookup) {
    found.push(`${node["Node Type"]} on content_source`);
  }
  if (node["Node Type"] === "ProjectSet" || node["Node Type"] === "Function Scan") {
    found.push(`${node["Node Type"]}${node["Function Name"] ? ` ${node["Function Name"]}` : ""}`);
  }
  // The rule functions are meant to be inlined: called instead, each row pays a function call.
  const called = /private\.source_is_(readable|writable)\(/.exec(node.Filter ?? "");
  if (called) found.push(`${called[0]}) called, not inlined`);
  for (const child of node.Plans ?? []) found.push(...sourceReadsBesidesLookups(child));
  return found;
}

async function planOf(
  tx: postgres.TransactionSql,
  role: string,
  claims: object,
  statement: string,
): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  await tx.savepoint(async (sp) => {
    await sp`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
    await sp.unsafe(`set local role ${role}`);
    const [row] = await sp.unsafe(`explain (format json) ${statement}`);
    const explained = row?.["QUERY PLAN"];
    plan = (typeof explained === "string" ? JSON.parse(explained) : explained)[0].Plan;
    throw new Undo();
  }).catch((e) => {
    if (!(e instanceof Undo)) throw e;
  });
  if (!plan) throw new Error(`No plan for ${statement}`);
  return plan;
}

test("source policies: a read or write by id checks its row's one source by primary key, whatever the number of sources", async () => {
  const reads: string[] = [];
  await adminSql.begin(async (tx) => {
    const [owner, reader] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of [owner, reader]) {
      await tx`insert into auth.users (id, email) values (${id}, ${`${id}@example.test`})`;
    }
    // Another user's sources in the benchmark's shares: published, key-locked, private.
    await tx`
      insert into public.content_source (name, user_id, is_published, require_key, keys)
      select 'many ' || n, ${owner}::uuid, n <= 240, n > 200 and n <= 240,
        case when n > 200 and n <= 240 then jsonb_build_object('access_key', 'access key ' || n) end
      from generate_series(1, 2000) n`;
    await tx`analyze public.content_source`;
    const tables = await tx<{ name: string }[]>`
      select c.name from private.content_table c order by c.name`;
    const signedIn = { sub: reader, role: "authenticated" };
    const visitor = { role: "anon" };
    const statements: [string, object[]][] = [
      ...tables.map(({ name }): [string, object[]] => [
        `select * from public.${name} t where t.id = 1`,
        [signedIn, visitor],
      ]),
      ["select s.id, s.name from public.content_source s where s.id = 1", [signedIn, visitor]],
      ["select * from public.content_update u where u.id = 1", [signedIn]],
      // Writes read the row under the read policy and check the write policy on the same source.
      ["update public.spell t set name = 'x' where t.id = 1", [signedIn]],
      ["delete from public.spell t where t.id = 1", [signedIn]],
    ];
    for (const [statement, callers] of statements) {
      for (const claims of callers) {
        const role = claims === visitor ? REQUEST_ROLES.anon : REQUEST_ROLES.authenticated;
        for (const read of sourceReadsBesidesLookups(await planOf(tx, role, claims, statement))) {
          reads.push(`${role}: ${statement}: ${read}`);
        }
      }
    }
    throw new Undo();
  }).catch((e) => {
    if (!(e instanceof Undo)) throw e;
  });
  deepStrictEqual(reads, []);
});

test("source policies: no policy of a source, its content or its proposals calls a set-returning function", async () => {
  const [row] = await adminSql<{ found: string[] }[]>`
    select coalesce(array_agg(distinct c.relname || ': ' || pol.polname || ' calls ' || p.proname
      order by c.relname || ': ' || pol.polname || ' calls ' || p.proname), '{}') as found
    from pg_catalog.pg_policy pol
    join pg_catalog.pg_class c on c.oid = pol.polrelid
    join pg_catalog.pg_depend d
      on d.classid = 'pg_catalog.pg_policy'::regclass and d.objid = pol.oid
    join pg_catalog.pg_proc p on d.refclassid = 'pg_catalog.pg_proc'::regclass and d.refobjid = p.oid
    where p.proretset and c.relnamespace = 'public'::regnamespace and (c.relname in ('content_source', 'content_update')
      or c.relname in (select t.name from private.content_table t))`;
  deepStrictEqual(row?.found, []);
});

/**
 * An expression (a policy's, as Postgres prints it, or a function's body) with every sub-select of
 * a lone call without arguments taken out: `(select private.is_admin())` and
 * `id in (select private.my_campaign_ids())` run once per statement. What is left, correlated
 * sub-selects included, is evaluated for each row.
 */
function perRowPart(expression: string): string {
  return expression.replaceAll(/\(\s*select\s+[\w.]+\(\)(\s+as\s+\w+)?\s*\)/gi, "$sub");
}

test("row policies call no function per row that Postgres cannot inline, in their own text or in the bodies of the functions it inlines: the caller's questions and other tables' rows are read once per statement", async () => {
  const policies = await adminSql<{ policy: string; expression: string }[]>`
    select c.relname || ': ' || p.polname as policy,
      coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' ||
        coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '') as expression
    from pg_policy p join pg_class c on c.oid = p.polrelid
    where c.relnamespace in (select s from private.project_schemas() s)
    order by 1`;
  // Security definer, procedural, volatile or with settings of its own: called, never inlined.
  const opaque = new Set(
    (await adminSql<{ name: string }[]>`
      select distinct n.nspname || '.' || p.proname as name
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      join pg_language l on l.oid = p.prolang
      where p.prosecdef or l.lanname <> 'sql' or p.proconfig is not null or p.provolatile = 'v'`)
      .map((r) => r.name),
  );
  // Plain SQL functions are inlined: what their bodies call per row, the policy calls per row.
  const inlined = new Map(
    (await adminSql<{ name: string; body: string }[]>`
      select n.nspname || '.' || p.proname as name, string_agg(p.prosrc, ' ') as body
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      join pg_language l on l.oid = p.prolang
      where l.lanname = 'sql' and n.nspname in ('private', 'public')
      group by 1`).map((r) => [r.name, r.body]),
  );
  const calledPerRow = (expression: string, seen: Set<string>): string[] =>
    [...perRowPart(expression).matchAll(/\b(\w+\.\w+)\(/g)].flatMap((call) => {
      const name = call[1] ?? "";
      if (opaque.has(name)) return [name];
      const body = inlined.get(name);
      if (body === undefined || seen.has(name)) return [];
      return calledPerRow(body, new Set([...seen, name])).map((inner) => `${name} → ${inner}`);
    });
  const perRow = policies.flatMap(({ policy, expression }) =>
    calledPerRow(expression, new Set()).map((calls) => `${policy} calls ${calls} per row`)
  );
  deepStrictEqual(perRow, []);
  // The policies do name the caller's questions, once per statement.
  equal(policies.some((p) => p.expression.includes("( SELECT private.is_admin()")), true);
});
