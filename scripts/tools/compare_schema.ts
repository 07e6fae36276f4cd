// Proves that the domain baselines in supabase/migrations/ (versions 20261122000100 to
// 20261122000600) build the same schema as an earlier set of migrations, and that Supabase's
// default grants leave no trace in it. By default the earlier set is the chain as it stood just
// before its later files were folded into the baselines, and no difference at all is allowed;
// `--base` names another git ref, such as the old 23-file chain (LAST_OLD_CHAIN_COMMIT), which
// brings its own allowlist of the differences intended since. Three fresh databases:
//   base:   the migrations of the git ref, on that ref's scripts/server/local_bootstrap.sql;
//   head:   the current baselines, on the same bootstrap as base;
//   hosted: the current baselines, on the current bootstrap, which reproduces the default grants
//           of hosted projects (skipped when both bootstraps are the same text).
// Each catalog is dumped (functions, policies, privileges, indexes, triggers, constraints, columns,
// types, extensions). base and head may differ only as the ref's allowlist says; head and hosted
// may not differ at all. Exits 1 on any other difference. Columns are compared by name, not by
// position: folding moves a column that a later file added into its table's create statement.
//
//   deno task schema:compare [--base <git ref> | --old-chain] [--embedded] [--database-url <url>]
//
// `--old-chain` is `--base LAST_OLD_CHAIN_COMMIT`.
//
// Real Postgres by default (DATABASE_URL, else 127.0.0.1:5432); `--embedded` uses in-memory PGlite
// databases instead.
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import postgres from "postgres";

/** The last commit whose supabase/migrations/ held the old chain (before the domain baselines). */
export const LAST_OLD_CHAIN_COMMIT = "abe39ede0918f83ff39059c5626324fb27065fcb";

/**
 * The last commit before the latest fold of later files into the baselines (20261126000100 to
 * 20261126000700): its chain must build exactly what the baselines build.
 */
export const LAST_UNFOLDED_COMMIT = "0cd11baf0ad74689e493b12b7d53fbf435e3b66f";

const root = new URL("../../", import.meta.url);

/** A difference that is intended: its section matches and its line matches the pattern. */
interface Allowance {
  section: string;
  pattern: RegExp;
  reason: string;
}

/**
 * The intended differences from each earlier set of migrations, by commit; a ref not listed here
 * may differ in nothing. Keep these lists short: every entry weakens the proof.
 */
export const ALLOWED_DIFFERENCES: Record<string, Allowance[]> = {
  [LAST_UNFOLDED_COMMIT]: [],
  [LAST_OLD_CHAIN_COMMIT]: [
    {
      section: "*",
      pattern: /\bprivate\.content_table\b/,
      reason:
        "the one list of content tables that the baselines' loops read (new in the baselines)",
    },
    {
      section: "functions",
      pattern: /^private\.search_matching_ids\(/,
      reason: "reads its searchable columns from private.content_table instead of a constant copy",
    },
    // What the files written after the consolidation changed (folded into the baselines since).
    {
      section: "*",
      pattern: new RegExp(
        "campaign_description_check|\\bprivate\\.(ai_request\\b|claim_ai_request\\(|" +
          "clients_granted_to_caller\\(|details_with_client_access\\(|" +
          "sync_character_grants_from_details\\()",
      ),
      reason: "the web client: text campaign descriptions, the AI-request budget, grants as " +
        "details.api_clients.client_access",
    },
    {
      section: "*",
      pattern: new RegExp(
        "uploaded_file_path_is_owners|\\bprivate\\.(content_source_unlock_failure\\b|" +
          "unlock_content_source\\(|content_source_subscriber_count\\(|begin_request\\(|" +
          "begin_api_key_request\\(|cap_api_clients\\(|vet_source_access_key\\(|" +
          "limit_api_client_character_writes\\(|refuse_unreadable_references\\()",
      ),
      reason: "holes found by attacking the service (docs: the trust section of the README)",
    },
    {
      section: "function privileges",
      pattern: /^private\.search_ranked_(?!ids\()\w+\(.* authenticated EXECUTE$/,
      reason:
        "the per-table search helpers trust their source list: only search_ranked_ids calls them",
    },
    {
      section: "policies",
      pattern: new RegExp(
        ' "(Content of readable sources can be read|Readable sources can be read|' +
          'Characters are readable by owner, GM, admin, or all if public)" PERMISSIVE SELECT ' +
          "to (anon,)?authenticated ",
      ),
      reason: "signed-out visitors read by the signed-in users' read policies",
    },
    {
      section: "*",
      pattern: /^(\S+ anon SELECT|content_source\.\w+ anon SELECT|.* anon EXECUTE)$/,
      reason: "signed-out visitors read public content and characters",
    },
    {
      section: "*",
      pattern: new RegExp(
        "\\bprivate\\.(official_source_ids|fill_character_defaults|search_ranked_ids|" +
          "remove_from_campaign|block_api_client_inserts)\\(",
      ),
      reason: "rules in SQL only: one official-sources helper, API-key refusals as PT403",
    },
    {
      section: "*",
      pattern: new RegExp(
        "^(\\w+ deprecated boolean not null default false|background artwork_url text( collate \\S+)?|" +
          "\\w+\\.deprecated authenticated \\w+|background\\.artwork_url authenticated \\w+)$|" +
          "\\bprivate\\.(linked_trait_name|linked_trait_description|find_or_make_linked_trait|" +
          "keep_linked_trait|link_new_record_trait|rename_linked_trait)\\(",
      ),
      reason: "the web client's content: deprecated, background artwork, linked traits",
    },
    // What the files written after the first fold changed (folded into the baselines since).
    {
      section: "*",
      pattern: new RegExp(
        "^private\\.(readable_source_ids|writable_source_ids|has_unlocked_source|" +
          "source_is_readable|source_is_writable|can_read_source|can_write_source|" +
          "my_source_keys)\\(|" +
          '^public\\.\\w+ "(Content can be added to writable sources|' +
          "Content of writable sources can be (edited|deleted)|" +
          "Owners can (edit|delete) their sources, admins official ones|" +
          "Signed-in users can propose changes to sources they can read|" +
          'Proposals can be read by their author and by readers of their s)" PERMISSIVE ',
      ),
      reason: "source rules decided on the row's own source by primary key, not on the set of " +
        "every readable or writable source per statement (docs/content.md)",
    },
    {
      section: "functions",
      pattern: /^private\.is_admin\(\) returns boolean .* cost (1|100) rows 0 /,
      reason: "cost 1: the default made policy-filtered scans cross the JIT threshold",
    },
    {
      section: "indexes",
      pattern: /^public\.(\w+) CREATE INDEX \1_name_id_idx ON public\.\1 USING btree \(name, id\)$/,
      reason: "indexes in find order, so a streamed find's cursor starts without sorting",
    },
    {
      section: "*",
      pattern: /^private\.read_as\(/,
      reason: "one-statement reads: the request opened and the read run in one call",
    },
    {
      section: "*",
      pattern:
        /^(campaign authenticated SELECT|campaign\.(?!join_key )\w+ authenticated SELECT)$|^private\.campaign_join_key\(/,
      reason: "the campaign join key hidden from players: only its owner reads it",
    },
    {
      section: "*",
      pattern: new RegExp(
        "^private\\.(account_deactivated|resolve_api_key)\\(|" +
          "^(private\\.\\S+|private) api_authenticator (EXECUTE|USAGE)$",
      ),
      reason: "requests connect as api_authenticator, which reads credentials through " +
        "lookups only it may call (docs/architecture.md)",
    },
    {
      section: "policies",
      pattern: new RegExp(
        ' "(Proposals can be read by their author and by readers of their s|' +
          'Votes can be read with their proposal)" PERMISSIVE SELECT to (anon,)?authenticated ',
      ),
      reason: "signed-out visitors read proposals on sources anyone may read, and their votes",
    },
    // What the files written after the second fold changed (folded into the baselines since).
    {
      section: "functions",
      pattern: /^private\.is_api_client_request\(\) /,
      reason: "no request claims (the hosted platform's null auth.jwt()) is not an API-key request",
    },
    {
      section: "*",
      pattern: new RegExp(
        '"Users can record their own uploaded files"|^uploaded_file\\.\\w+ authenticated INSERT$|' +
          "\\bprivate\\.record_upload\\(",
      ),
      reason: "stored files' rows are written only by upload-public-file, through a definer",
    },
    {
      section: "*",
      pattern: new RegExp(
        "\\bprivate\\.(idempotent_request\\b|idempotency_scope\\(|claim_idempotency_key\\(|" +
          "remember_idempotent_answer\\()",
      ),
      reason: "safe retries: the answers of writes sent with an Idempotency-Key (docs/retries.md)",
    },
    {
      section: "*",
      pattern:
        /\bprivate\.(is_game_master|require_tier|readable_source_condition|can_upload_public_files)\(/,
      reason: "rules written once in SQL: the tier refusal, the GAME-MASTER check, the " +
        "readable-source condition (docs/architecture.md, SQL helpers)",
    },
    {
      section: "functions",
      pattern: new RegExp(
        "^private\\.(effective_tier|join_gm_group|regenerate_gm_code|gm_group_members|" +
          "enforce_upload_tier|claim_new_content_source|before_campaign_insert|" +
          "enforce_encounter_tier)\\(",
      ),
      reason: "the functions that repeated those rules call the helpers instead (same answers)",
    },
    {
      section: "*",
      pattern: new RegExp(
        "\\bprivate\\.(build_content_lists|provision_content_table)\\(|" +
          "^content_update content_update_type_check: |^private\\.content_update_table\\(text\\) returns ",
      ),
      reason: "every per-type part of the content tables made from private.content_table, the " +
        "types a content update may name included (docs/architecture.md, adding a content type)",
    },
  ],
};

/** One database to build and dump: run statements, read rows. */
interface Target {
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function postgresTarget(serverUrl: string, label: string): Promise<Target> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `rpgcompare_${label}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const sql = postgres(url.href, { max: 1, onnotice: () => {} });
  return {
    exec: async (text) => {
      await sql.unsafe(text);
    },
    rows: async (text) => [...await sql.unsafe(text)],
    async close() {
      await sql.end();
      await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

async function embeddedTarget(): Promise<Target> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  return {
    exec: async (text) => {
      await db.exec(text);
    },
    rows: async (text) => (await db.query<Record<string, unknown>>(text)).rows,
    close: () => db.close(),
  };
}

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: root, stdout: "piped", stderr: "piped" })
    .output();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** The migration files of a git ref, in the order they apply. */
async function migrationsAt(ref: string): Promise<{ name: string; text: string }[]> {
  const names = (await git(["ls-tree", "--name-only", `${ref}:supabase/migrations/`]))
    .split("\n").filter((n) => n.endsWith(".sql")).sort();
  return await Promise.all(names.map(async (name) => ({
    name,
    text: await git(["show", `${ref}:supabase/migrations/${name}`]),
  })));
}

/**
 * The domain baselines of the work tree (versions 20261122000100 to 20261122000600), in the order
 * they apply. Changes made since the consolidation in migration files of their own are left out
 * until they are folded into their baseline; the privilege tests cover them meanwhile.
 */
async function currentMigrations(): Promise<{ name: string; text: string }[]> {
  const dir = new URL("supabase/migrations/", root);
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && /^2026112200\d{4}_.*\.sql$/.test(entry.name)) names.push(entry.name);
  }
  names.sort();
  return await Promise.all(names.map(async (name) => ({
    name,
    text: await Deno.readTextFile(new URL(name, dir)),
  })));
}

async function build(
  target: Target,
  bootstrap: string,
  files: { name: string; text: string }[],
): Promise<void> {
  await target.exec(bootstrap);
  for (const file of files) {
    try {
      await target.exec(file.text);
    } catch (e) {
      throw new Error(`${file.name} failed: ${String(e)}`, { cause: e });
    }
  }
}

const SCHEMAS = "('public', 'private', 'auth', 'extensions')";

/** Catalog queries, each returning one text line per object (`line`). */
const CATALOG: Record<string, string> = {
  extensions: `
    select e.extname || ' ' || e.extversion || ' in ' || n.nspname as line
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace`,
  schemas: `
    select n.nspname || ' owner ' || pg_get_userbyid(n.nspowner) as line
    from pg_namespace n where n.nspname in ${SCHEMAS}`,
  types: `
    select t.oid::regtype::text || ' enum (' ||
      (select string_agg(e.enumlabel, ', ' order by e.enumsortorder) from pg_enum e
       where e.enumtypid = t.oid) || ')' as line
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype = 'e' and n.nspname in ${SCHEMAS}`,
  relations: `
    select c.oid::regclass::text || ' kind ' || c.relkind::text || ' owner ' ||
      pg_get_userbyid(c.relowner) || ' rls ' || c.relrowsecurity || ' force ' ||
      c.relforcerowsecurity as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in ${SCHEMAS} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
      and not exists (select from pg_depend d where d.objid = c.oid and d.deptype = 'e')`,
  columns: `
    select c.oid::regclass::text || ' ' || a.attname || ' ' ||
      format_type(a.atttypid, a.atttypmod) || case when a.attnotnull then ' not null' else '' end ||
      coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') ||
      case when a.attidentity <> '' then ' identity ' || a.attidentity::text else '' end ||
      case when a.attgenerated <> '' then ' generated ' || a.attgenerated::text else '' end ||
      coalesce(' collate ' || nullif(a.attcollation, 0)::regcollation::text, '') as line
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname in ${SCHEMAS} and c.relkind in ('r', 'p', 'v', 'm', 'f')
      and a.attnum > 0 and not a.attisdropped`,
  constraints: `
    select coalesce(nullif(c.conrelid, 0)::regclass::text, c.contypid::regtype::text) || ' ' ||
      c.conname || ': ' || pg_get_constraintdef(c.oid) as line
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname in ${SCHEMAS}`,
  indexes: `
    select i.schemaname || '.' || i.tablename || ' ' || i.indexdef as line
    from pg_indexes i where i.schemaname in ${SCHEMAS}`,
  triggers: `
    select t.tgrelid::regclass::text || ' ' || pg_get_triggerdef(t.oid) || ' enabled ' ||
      t.tgenabled::text as line
    from pg_trigger t where not t.tgisinternal`,
  policies: `
    select p.schemaname || '.' || p.tablename || ' "' || p.policyname || '" ' || p.permissive ||
      ' ' || p.cmd || ' to ' || array_to_string(p.roles, ',') || ' using (' ||
      coalesce(p.qual, '') || ') check (' || coalesce(p.with_check, '') || ')' as line
    from pg_policies p`,
  functions: `
    select p.oid::regprocedure::text || ' returns ' || pg_get_function_result(p.oid) ||
      ' language ' || l.lanname || ' ' ||
      case p.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end ||
      case when p.prosecdef then ' security definer' else '' end ||
      case when p.proleakproof then ' leakproof' else '' end ||
      case when p.proisstrict then ' strict' else '' end ||
      ' parallel ' || p.proparallel::text || ' cost ' || p.procost || ' rows ' || p.prorows ||
      ' owner ' || pg_get_userbyid(p.proowner) ||
      coalesce(' set ' || array_to_string(p.proconfig, ', '), '') ||
      ' body: ' || regexp_replace(btrim(p.prosrc), '\\s+', ' ', 'g') as line
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    join pg_language l on l.oid = p.prolang
    where n.nspname in ${SCHEMAS}
      and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
  "table privileges": `
    select c.oid::regclass::text || ' ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') ||
      ' ' || x.privilege_type || case when x.is_grantable then ' with grant option' else '' end
      as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace,
      aclexplode(coalesce(c.relacl, acldefault(
        case when c.relkind = 'S' then 's' else 'r' end::"char", c.relowner))) x
    where n.nspname in ${SCHEMAS} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
  "column privileges": `
    select c.oid::regclass::text || '.' || a.attname || ' ' ||
      coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' || x.privilege_type as line
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace,
      aclexplode(a.attacl) x
    where n.nspname in ${SCHEMAS} and a.attacl is not null and not a.attisdropped`,
  "function privileges": `
    select p.oid::regprocedure::text || ' ' ||
      coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' || x.privilege_type as line
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace,
      aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) x
    where n.nspname in ${SCHEMAS}`,
  "schema privileges": `
    select n.nspname || ' ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' ||
      x.privilege_type as line
    from pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) x
    where n.nspname in ${SCHEMAS}`,
  "default privileges": `
    select pg_get_userbyid(d.defaclrole) || ' in ' ||
      coalesce(nullif(d.defaclnamespace, 0)::regnamespace::text, 'all schemas') || ' on ' ||
      d.defaclobjtype::text || ': ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' ||
      x.privilege_type as line
    from pg_default_acl d, aclexplode(d.defaclacl) x`,
};

async function dump(target: Target): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const [section, query] of Object.entries(CATALOG)) {
    const rows = await target.rows(query);
    result.set(section, rows.map((r) => String(r.line)).sort());
  }
  return result;
}

function allowance(allowed: Allowance[], section: string, line: string): string | null {
  const hit = allowed.find((a) =>
    (a.section === "*" || a.section === section) && a.pattern.test(line)
  );
  return hit?.reason ?? null;
}

/** Prints the differences; returns how many are not allowed. */
function report(
  base: Map<string, string[]>,
  head: Map<string, string[]>,
  allowed: (section: string, line: string) => string | null,
): number {
  let unexpected = 0;
  for (const section of Object.keys(CATALOG)) {
    const before = new Set(base.get(section));
    const after = new Set(head.get(section));
    const lines = [
      ...[...before].filter((l) => !after.has(l)).map((l) => ["-", l] as const),
      ...[...after].filter((l) => !before.has(l)).map((l) => ["+", l] as const),
    ];
    if (lines.length === 0) continue;
    console.log(`\n## ${section}`);
    for (const [sign, line] of lines) {
      const reason = allowed(section, line);
      if (reason) console.log(`  ${sign} ${line}\n      (allowed: ${reason})`);
      else {
        unexpected++;
        console.log(`${sign} ${line}`);
      }
    }
  }
  return unexpected;
}

/** Builds the migrations on a bootstrap in a fresh database and dumps its catalog. */
async function catalogOf(
  open: () => Promise<Target>,
  bootstrap: string,
  files: { name: string; text: string }[],
): Promise<Map<string, string[]>> {
  const target = await open();
  try {
    await build(target, bootstrap, files);
    return await dump(target);
  } finally {
    await target.close();
  }
}

if (import.meta.main) {
  const { values: args } = parseArgs({
    args: Deno.args,
    options: {
      base: { type: "string" },
      "old-chain": { type: "boolean", default: false },
      "database-url": { type: "string" },
      embedded: { type: "boolean", default: false },
    },
  });
  const baseRef = args.base ?? (args["old-chain"] ? LAST_OLD_CHAIN_COMMIT : LAST_UNFOLDED_COMMIT);
  const serverUrl = args["database-url"] ?? Deno.env.get("DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const open = (label: string) => () =>
    args.embedded ? embeddedTarget() : postgresTarget(serverUrl, label);
  const baseFiles = await migrationsAt(baseRef);
  const headFiles = await currentMigrations();
  // The bootstrap moved to scripts/server/ after the refs this compares against were made.
  const baseBootstrap = await git(["show", `${baseRef}:scripts/server/local_bootstrap.sql`])
    .catch(() => git(["show", `${baseRef}:scripts/local_bootstrap.sql`]));
  const hostedBootstrap = await Deno.readTextFile(
    new URL("scripts/server/local_bootstrap.sql", root),
  );
  const where = args.embedded ? "embedded PGlite" : "Postgres";

  const base = await catalogOf(open("base"), baseBootstrap, baseFiles);
  const head = await catalogOf(open("head"), baseBootstrap, headFiles);
  console.log(
    `Schema of ${baseFiles.length} migrations at ${baseRef} against ${headFiles.length} ` +
      `in supabase/migrations/, on ${where}`,
  );
  const commit = (await git(["rev-parse", `${baseRef}^{commit}`])).trim();
  const allowed = ALLOWED_DIFFERENCES[commit] ?? [];
  let unexpected = report(base, head, (section, line) => allowance(allowed, section, line));
  if (hostedBootstrap !== baseBootstrap) {
    const hosted = await catalogOf(open("hosted"), hostedBootstrap, headFiles);
    console.log("\nThe same migrations on the current bootstrap (hosted default grants)");
    unexpected += report(head, hosted, () => null);
  }
  const total = [...base.values()].reduce((n, lines) => n + lines.length, 0);
  if (unexpected > 0) {
    console.log(`\n${unexpected} unexpected difference(s)`);
    Deno.exitCode = 1;
  } else {
    console.log(`\nSame schema: ${total} catalog lines compared, no unexpected difference`);
  }
}
