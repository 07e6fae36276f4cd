/**
 * Who may do what, asked of the database directly: every table x command x caller, and a direct
 * write to every column a user must never set. Each statement runs as its caller (the role and
 * `request.jwt.claims` set transaction-locally, as PostgREST and the functions' request openers
 * do) inside a savepoint that is always rolled back, within one transaction that is rolled back
 * too, so nothing persists.
 *
 * The functions' callers run as the functions' own roles; the Data API (PostgREST, GraphQL) runs
 * as `anon` and `authenticated` with the same claims, and may do nothing at all: the functions
 * are the only door. The harness database is built with Supabase's default grants
 * (scripts/server/local_bootstrap.sql grants everything in `public` to anon, authenticated and
 * service_role, as hosted projects created before mid-2026 do), so this proves the migrations
 * take them back before granting exactly what is needed.
 */
import { deepStrictEqual, equal, match, rejects } from "node:assert/strict";
import postgres from "postgres";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";
import { adminSql, hosted, test } from "./_harness.ts";

/**
 * The functions' callers (`anon` a signed-out caller), then the Data API's: a publishable-key
 * request (`rest_anon`) and a signed-in one (`rest_owner`, the owner's session), which no case
 * allows.
 */
const ROLES = [
  "anon",
  "stranger",
  "owner",
  "gm",
  "admin",
  "api_client",
  "service_role",
  "rest_anon",
  "rest_owner",
] as const;
type Role = typeof ROLES[number];

interface Fixture {
  owner: string;
  stranger: string;
  gm: string;
  admin: string;
  orphan: string;
  source: number;
  spell: number;
  campaign: number;
  character: number;
  client: number;
  encounter: number;
  upload: number;
  proposal: number;
}

/** A statement and the roles for which it must take effect (no error and at least one row). */
interface Case {
  table: string;
  command: "select" | "insert" | "update" | "delete";
  sql: (f: Fixture) => string;
  allowed: Role[];
}

const SIGNED_IN: Role[] = ["stranger", "owner", "gm", "admin", "api_client"];
const NOBODY: Role[] = [];
/** Published content: signed-out visitors (the anon key) read it too. */
const EVERYONE: Role[] = ["anon", ...SIGNED_IN];
const IMAGE_NAME = `${"a".repeat(64)}.png`;
/** An upload's path starts with its owner's id (a constraint); SQL for the acting user's path. */
const OWN_IMAGE_PATH = `(select auth.uid())::text || '/${IMAGE_NAME}'`;

const CASES: Case[] = [
  // Profiles: each user their own row and its presentational columns only.
  {
    table: "public_user",
    command: "select",
    sql: (f) => `select 1 from public.public_user where user_id = '${f.owner}'`,
    allowed: ["owner", "api_client"],
  },
  {
    table: "public_user",
    command: "insert",
    sql: (f) => `insert into public.public_user (user_id) values ('${f.orphan}')`,
    allowed: NOBODY,
  },
  {
    table: "public_user",
    command: "update",
    sql: (f) => `update public.public_user set display_name = 'New' where user_id = '${f.owner}'`,
    allowed: ["owner", "api_client"],
  },
  ...[
    "is_admin = true",
    "supporter_tier = 4",
    "is_mod = true",
    "is_developer = true",
    "is_community_paragon = true",
    "deactivated = true",
    "created_at = now() - interval '1 year'",
    `user_id = user_id`,
  ].map((set): Case => ({
    table: "public_user",
    command: "update",
    sql: (f) => `update public.public_user set ${set} where user_id = '${f.owner}'`,
    allowed: NOBODY,
  })),
  {
    table: "public_user",
    command: "delete",
    sql: (f) => `delete from public.public_user where user_id = '${f.owner}'`,
    allowed: NOBODY,
  },

  // API clients: read and revoked by their owner only, never through an API key.
  {
    table: "api_client",
    command: "select",
    sql: (f) => `select 1 from public.api_client where id = ${f.client}`,
    allowed: ["owner"],
  },
  {
    table: "api_client",
    command: "insert",
    sql: (f) => `insert into public.api_client (user_id, name) values ('${f.owner}', 'Mine')`,
    allowed: NOBODY,
  },
  ...["name = 'Renamed'", "user_id = user_id", "last_used_at = now()"].map((set): Case => ({
    table: "api_client",
    command: "update",
    sql: (f) => `update public.api_client set ${set} where id = ${f.client}`,
    allowed: NOBODY,
  })),
  {
    table: "api_client",
    command: "delete",
    sql: (f) => `delete from public.api_client where id = ${f.client}`,
    allowed: ["owner"],
  },
  {
    table: "private.api_key",
    command: "select",
    sql: () => `select 1 from private.api_key`,
    allowed: NOBODY,
  },
  {
    table: "private.api_key",
    command: "insert",
    sql: (f) =>
      `insert into private.api_key (key_hash, user_id) values ('${"b".repeat(64)}', '${f.owner}')`,
    allowed: NOBODY,
  },
  {
    table: "private.api_key",
    command: "update",
    sql: (f) => `update private.api_key set user_id = '${f.stranger}'`,
    allowed: NOBODY,
  },
  {
    table: "private.api_key",
    command: "delete",
    sql: () => `delete from private.api_key`,
    allowed: NOBODY,
  },

  // GM groups: written only through their functions.
  {
    table: "gm_group",
    command: "select",
    sql: (f) => `select 1 from public.gm_group where gm_user_id = '${f.gm}'`,
    allowed: ["gm"],
  },
  {
    table: "gm_group",
    command: "insert",
    sql: (f) => `insert into public.gm_group (gm_user_id, access_code) values ('${f.owner}', 'a')`,
    allowed: NOBODY,
  },
  {
    table: "gm_group",
    command: "update",
    sql: (f) => `update public.gm_group set access_code = 'known' where gm_user_id = '${f.gm}'`,
    allowed: NOBODY,
  },
  {
    table: "gm_group",
    command: "delete",
    sql: (f) => `delete from public.gm_group where gm_user_id = '${f.gm}'`,
    allowed: NOBODY,
  },
  {
    table: "gm_group_member",
    command: "select",
    sql: (f) => `select 1 from public.gm_group_member where user_id = '${f.owner}'`,
    allowed: ["owner", "gm"],
  },
  {
    table: "gm_group_member",
    command: "insert",
    sql: (f) =>
      `insert into public.gm_group_member (user_id, gm_user_id) values ('${f.stranger}', '${f.gm}')`,
    allowed: NOBODY,
  },
  {
    table: "gm_group_member",
    command: "update",
    sql: (f) => `update public.gm_group_member set added_at = now() where user_id = '${f.owner}'`,
    allowed: NOBODY,
  },
  {
    table: "gm_group_member",
    command: "delete",
    sql: (f) => `delete from public.gm_group_member where user_id = '${f.owner}'`,
    allowed: ["owner", "gm"],
  },

  // Uploaded files: recorded only by upload-public-file (private.record_upload), never changed.
  {
    table: "uploaded_file",
    command: "select",
    sql: (f) => `select 1 from public.uploaded_file where id = ${f.upload}`,
    allowed: ["owner", "api_client"],
  },
  {
    table: "uploaded_file",
    command: "insert",
    sql: () =>
      `insert into public.uploaded_file (bucket, path, content_type, byte_size)
       values ('backgrounds', ${OWN_IMAGE_PATH}, 'image/png', 10)`,
    allowed: NOBODY,
  },
  {
    table: "uploaded_file",
    command: "insert",
    sql: (f) =>
      `insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
       values ('${f.stranger}', 'backgrounds', '${f.stranger}/${IMAGE_NAME}', 'image/png', 10)`,
    allowed: NOBODY,
  },
  ...["byte_size = 1", "path = path", "user_id = user_id"].map((set): Case => ({
    table: "uploaded_file",
    command: "update",
    sql: (f) => `update public.uploaded_file set ${set} where id = ${f.upload}`,
    allowed: NOBODY,
  })),
  {
    table: "uploaded_file",
    command: "delete",
    sql: (f) => `delete from public.uploaded_file where id = ${f.upload}`,
    allowed: NOBODY,
  },

  // Content sources and their content: read by whoever may read the source, written by its owner.
  {
    table: "content_source",
    command: "select",
    sql: (f) => `select 1 from public.content_source where id = ${f.source}`,
    allowed: EVERYONE,
  },
  {
    table: "content_source",
    command: "select",
    sql: (f) => `select keys from public.content_source where id = ${f.source}`,
    allowed: NOBODY,
  },
  {
    table: "content_source",
    command: "insert",
    sql: () => `insert into public.content_source (name) values ('Homebrew')`,
    allowed: ["owner", "gm", "admin", "api_client"],
  },
  {
    table: "content_source",
    command: "insert",
    sql: (f) => `insert into public.content_source (name, user_id) values ('X', '${f.owner}')`,
    allowed: NOBODY,
  },
  {
    table: "content_source",
    command: "update",
    sql: (f) => `update public.content_source set name = 'Renamed' where id = ${f.source}`,
    allowed: ["owner", "api_client"],
  },
  ...["user_id = null", "created_at = now()", "updated_at = now()"].map((set): Case => ({
    table: "content_source",
    command: "update",
    sql: (f) => `update public.content_source set ${set} where id = ${f.source}`,
    allowed: NOBODY,
  })),
  {
    table: "content_source",
    command: "delete",
    sql: (f) => `delete from public.content_source where id = ${f.source}`,
    allowed: ["owner", "api_client"],
  },
  {
    table: "spell",
    command: "select",
    sql: (f) => `select 1 from public.spell where id = ${f.spell}`,
    allowed: EVERYONE,
  },
  {
    table: "spell",
    command: "insert",
    sql: (f) =>
      `insert into public.spell (name, rank, content_source_id) values ('Spark', 1, ${f.source})`,
    allowed: ["owner", "api_client"],
  },
  {
    table: "spell",
    command: "update",
    sql: (f) => `update public.spell set name = 'Renamed' where id = ${f.spell}`,
    allowed: ["owner", "api_client"],
  },
  ...["content_source_id = 1", "created_at = now()", "updated_at = now()"].map((set): Case => ({
    table: "spell",
    command: "update",
    sql: (f) => `update public.spell set ${set} where id = ${f.spell}`,
    allowed: NOBODY,
  })),
  {
    table: "spell",
    command: "delete",
    sql: (f) => `delete from public.spell where id = ${f.spell}`,
    allowed: ["owner", "api_client"],
  },
  {
    table: "private.content_source_unlock",
    command: "insert",
    sql: (f) =>
      `insert into private.content_source_unlock (user_id, content_source_id)
       values ('${f.stranger}', ${f.source})`,
    allowed: NOBODY,
  },

  // Campaigns (the GM's), characters (the owner's, in the GM's campaign) and their grants.
  {
    table: "campaign",
    command: "select",
    sql: (f) => `select 1 from public.campaign where id = ${f.campaign}`,
    allowed: ["owner", "gm", "admin"],
  },
  {
    table: "campaign",
    command: "insert",
    sql: () => `insert into public.campaign (name) values ('Table')`,
    allowed: ["owner", "gm", "api_client"],
  },
  {
    table: "campaign",
    command: "insert",
    sql: (f) => `insert into public.campaign (name, user_id) values ('Table', '${f.owner}')`,
    allowed: NOBODY,
  },
  {
    table: "campaign",
    command: "update",
    sql: (f) => `update public.campaign set name = 'Renamed' where id = ${f.campaign}`,
    allowed: ["gm"],
  },
  ...["join_key = 'aaaaaa-aaaaaa'", "user_id = user_id", "created_at = now()"].map((
    set,
  ): Case => ({
    table: "campaign",
    command: "update",
    sql: (f) => `update public.campaign set ${set} where id = ${f.campaign}`,
    allowed: NOBODY,
  })),
  {
    table: "campaign",
    command: "delete",
    sql: (f) => `delete from public.campaign where id = ${f.campaign}`,
    allowed: ["gm"],
  },
  {
    table: "campaign_join_grant",
    command: "select",
    sql: (f) => `select 1 from public.campaign_join_grant where campaign_id = ${f.campaign}`,
    allowed: NOBODY,
  },
  {
    table: "campaign_join_grant",
    command: "insert",
    sql: (f) =>
      `insert into public.campaign_join_grant (user_id, campaign_id)
       values ('${f.owner}', ${f.campaign})`,
    allowed: NOBODY,
  },
  {
    table: "campaign_join_grant",
    command: "update",
    sql: () => `update public.campaign_join_grant set granted_at = now()`,
    allowed: NOBODY,
  },
  {
    table: "character",
    command: "select",
    sql: (f) => `select 1 from public.character where id = ${f.character}`,
    allowed: ["owner", "gm", "admin", "api_client"],
  },
  {
    table: "character",
    command: "insert",
    sql: () => `insert into public.character (name) values ('Wanderer')`,
    allowed: ["stranger", "owner", "gm", "admin"],
  },
  {
    table: "character",
    command: "insert",
    sql: (f) => `insert into public.character (name, user_id) values ('W', '${f.stranger}')`,
    allowed: NOBODY,
  },
  {
    table: "character",
    command: "update",
    // An API client changes only stats and inventory, as the consent screen lists.
    sql: (f) => `update public.character set name = 'Renamed' where id = ${f.character}`,
    allowed: ["owner", "gm", "admin"],
  },
  ...["user_id = user_id", "created_at = now()", "updated_at = now()"].map((set): Case => ({
    table: "character",
    command: "update",
    sql: (f) => `update public.character set ${set} where id = ${f.character}`,
    allowed: NOBODY,
  })),
  {
    table: "character",
    command: "delete",
    sql: (f) => `delete from public.character where id = ${f.character}`,
    allowed: ["owner", "admin"],
  },
  {
    table: "character_grant",
    command: "select",
    sql: (f) => `select 1 from public.character_grant where character_id = ${f.character}`,
    allowed: ["owner"],
  },
  {
    table: "character_grant",
    command: "insert",
    sql: (f) =>
      `insert into public.character_grant (client_id, character_id)
       values (${f.client}, ${f.character})`,
    allowed: NOBODY,
  },
  {
    table: "character_grant",
    command: "update",
    sql: (f) =>
      `update public.character_grant set granted_at = now() where character_id = ${f.character}`,
    allowed: NOBODY,
  },
  {
    table: "character_grant",
    command: "delete",
    sql: (f) => `delete from public.character_grant where character_id = ${f.character}`,
    allowed: ["owner"],
  },
  {
    table: "encounter",
    command: "select",
    sql: (f) => `select 1 from public.encounter where id = ${f.encounter}`,
    allowed: ["gm"],
  },
  {
    table: "encounter",
    command: "insert",
    sql: () =>
      `insert into public.encounter (name, icon, color, combatants, meta_data)
       values ('Fight', 'sword', 'red', '{}', '{}')`,
    allowed: ["owner", "gm", "api_client"],
  },
  {
    table: "encounter",
    command: "update",
    sql: (f) => `update public.encounter set name = 'Renamed' where id = ${f.encounter}`,
    allowed: ["gm"],
  },
  ...["user_id = user_id", "created_at = now()"].map((set): Case => ({
    table: "encounter",
    command: "update",
    sql: (f) => `update public.encounter set ${set} where id = ${f.encounter}`,
    allowed: NOBODY,
  })),
  {
    table: "encounter",
    command: "delete",
    sql: (f) => `delete from public.encounter where id = ${f.encounter}`,
    allowed: ["gm"],
  },

  // Proposals: made by readers of the source; decided only by the moderation function.
  {
    table: "content_update",
    command: "select",
    sql: (f) => `select 1 from public.content_update where id = ${f.proposal}`,
    // The fixture's proposal is on a published book: visitors read it as any account could.
    allowed: EVERYONE,
  },
  {
    table: "content_update",
    command: "insert",
    sql: (f) =>
      `insert into public.content_update (type, ref_id, action, data, content_source_id)
       values ('spell', ${f.spell}, 'UPDATE', '{"name": "Better"}', ${f.source})`,
    allowed: SIGNED_IN,
  },
  {
    table: "content_update",
    command: "insert",
    sql: (f) =>
      `insert into public.content_update (type, ref_id, action, data, content_source_id, state,
         decided_at)
       values ('spell', ${f.spell}, 'UPDATE', '{"name": "Better"}', ${f.source}, 'APPROVED', now())`,
    allowed: NOBODY,
  },
  ...["state = 'APPROVED', decided_at = now()", "discord_msg_id = 'other'", "data = '{}'"].map((
    set,
  ): Case => ({
    table: "content_update",
    command: "update",
    sql: (f) => `update public.content_update set ${set} where id = ${f.proposal}`,
    allowed: NOBODY,
  })),
  {
    table: "content_update",
    command: "delete",
    sql: (f) => `delete from public.content_update where id = ${f.proposal}`,
    allowed: NOBODY,
  },
  {
    table: "content_update_vote",
    command: "select",
    sql: (f) => `select 1 from public.content_update_vote where content_update_id = ${f.proposal}`,
    allowed: EVERYONE,
  },
  {
    table: "content_update_vote",
    command: "insert",
    sql: (f) =>
      `insert into public.content_update_vote (content_update_id, discord_user_id, vote)
       values (${f.proposal}, 'someone', 'UP')`,
    allowed: NOBODY,
  },
  {
    table: "content_update_vote",
    command: "update",
    sql: (f) =>
      `update public.content_update_vote set vote = 'DOWN' where content_update_id = ${f.proposal}`,
    allowed: NOBODY,
  },
  {
    table: "content_update_vote",
    command: "delete",
    sql: (f) => `delete from public.content_update_vote where content_update_id = ${f.proposal}`,
    allowed: NOBODY,
  },
];

/** Rows owned by the database role, made inside the test's transaction. */
async function arrange(tx: postgres.TransactionSql): Promise<Fixture> {
  const [owner, stranger, gm, admin, orphan] = [1, 2, 3, 4, 5].map((): string =>
    crypto.randomUUID()
  ) as [string, string, string, string, string];
  for (const id of [owner, stranger, gm, admin, orphan]) {
    await tx`insert into auth.users (id, email) values (${id}, ${`${id}@example.test`})`;
  }
  await tx`delete from public.public_user where user_id = ${orphan}`;
  await tx`update public.public_user set supporter_tier = 2 where user_id = ${owner}`;
  await tx`update public.public_user set supporter_tier = 4 where user_id = ${gm}`;
  await tx`update public.public_user set is_admin = true where user_id = ${admin}`;
  const one = async (query: Promise<{ id: number }[]>) => Number((await query)[0]?.id);
  const source = await one(tx`
    insert into public.content_source (name, user_id, is_published)
    values ('Homebrew', ${owner}, true) returning id`);
  const spell = await one(tx`
    insert into public.spell (name, rank, content_source_id) values ('Spark', 1, ${source})
    returning id`);
  // The GAME-MASTER tier above opened the group (private.open_gm_group); its code is fixed here.
  await tx`update public.gm_group set access_code = 'code' where gm_user_id = ${gm}`;
  await tx`insert into public.gm_group_member (user_id, gm_user_id) values (${owner}, ${gm})`;
  const campaign = await one(tx`
    insert into public.campaign (name, user_id) values ('Table', ${gm}) returning id`);
  const character = await one(tx`
    insert into public.character (name, user_id) values ('Hero', ${owner}) returning id`);
  // A character enters a campaign only through its GM or a join grant (trigger), so as the GM.
  await tx`select set_config('request.jwt.claims', ${JSON.stringify({ sub: gm })}, true)`;
  await tx`update public.character set campaign_id = ${campaign} where id = ${character}`;
  await tx`select set_config('request.jwt.claims', '', true)`;
  const client = await one(tx`
    insert into public.api_client (user_id, name) values (${owner}, 'Tool') returning id`);
  await tx`insert into private.api_key (key_hash, user_id, client_id)
           values (${"c".repeat(64)}, ${owner}, ${client})`;
  await tx`insert into public.character_grant (client_id, character_id)
           values (${client}, ${character})`;
  await tx`insert into public.campaign_join_grant (user_id, campaign_id)
           values (${stranger}, ${campaign})`;
  const encounter = await one(tx`
    insert into public.encounter (user_id, name, icon, color, combatants, meta_data)
    values (${gm}, 'Ambush', 'sword', 'red', '{}', '{}') returning id`);
  const upload = await one(tx`
    insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
    values (${owner}, 'portraits', ${`${owner}/${IMAGE_NAME}`}, 'image/png', 10) returning id`);
  const proposal = await one(tx`
    insert into public.content_update
      (user_id, type, ref_id, action, data, content_source_id, discord_msg_id)
    values (${owner}, 'spell', ${spell}, 'UPDATE', '{"name": "Sparkle"}', ${source}, 'message')
    returning id`);
  await tx`insert into public.content_update_vote (content_update_id, discord_user_id, vote)
           values (${proposal}, 'moderator', 'UP')`;
  return {
    owner,
    stranger,
    gm,
    admin,
    orphan,
    source,
    spell,
    campaign,
    character,
    client,
    encounter,
    upload,
    proposal,
  };
}

/** The database role and JWT claims a role of the matrix runs under. */
function identity(role: Role, f: Fixture): { dbRole: string; claims: Record<string, unknown> } {
  switch (role) {
    case "anon":
      return { dbRole: REQUEST_ROLES.anon, claims: {} };
    case "service_role":
      return { dbRole: REQUEST_ROLES.service, claims: { role } };
    case "rest_anon":
      return { dbRole: "anon", claims: { role: "anon" } };
    case "rest_owner":
      return { dbRole: "authenticated", claims: { sub: f.owner, role: "authenticated" } };
    case "api_client":
      return {
        dbRole: REQUEST_ROLES.authenticated,
        claims: { sub: f.owner, role: "authenticated", api_client_id: f.client },
      };
    default:
      return {
        dbRole: REQUEST_ROLES.authenticated,
        claims: { sub: f[role], role: "authenticated" },
      };
  }
}

class Undo extends Error {}

/** Whether the statement took effect for the role: no error and at least one row. */
async function takesEffect(
  tx: postgres.TransactionSql,
  role: Role,
  f: Fixture,
  statement: string,
): Promise<boolean> {
  let effect = false;
  try {
    await tx.savepoint(async (sp) => {
      const { dbRole, claims } = identity(role, f);
      // As PostgREST switches: the role and the claims, transaction-locally, in one statement.
      await sp`select set_config('role', ${dbRole}, true),
                      set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
      const result = await sp.unsafe(statement);
      effect = result.count > 0;
      throw new Undo();
    });
  } catch (e) {
    if (!(e instanceof Undo)) effect = false;
  }
  return effect;
}

test("SQL privileges: every table, command and caller gets exactly what it should, and the Data API's roles nothing, even with Supabase's default grants", async () => {
  const mismatches: string[] = [];
  await adminSql.begin(async (tx) => {
    const f = await arrange(tx);
    for (const c of CASES) {
      const statement = c.sql(f);
      for (const role of ROLES) {
        const expected = c.allowed.includes(role);
        const actual = await takesEffect(tx, role, f, statement);
        if (actual !== expected) {
          mismatches.push(
            `${role} ${expected ? "refused" : "allowed"}: ${statement.replace(/\s+/g, " ")}`,
          );
        }
      }
    }
    throw new Undo();
  }).catch((e) => {
    if (!(e instanceof Undo)) throw e;
  });
  deepStrictEqual(mismatches, []);
});

test("SQL privileges: a Data API request, switched as PostgREST switches, is refused by privilege before any policy", async () => {
  const [user] = await adminSql<{ id: string }[]>`
    insert into auth.users (id, email) values (gen_random_uuid(), 'rest-' || gen_random_uuid() || '@example.test')
    returning id`;
  const asDataApi = (role: string, claims: object, statement: string) =>
    adminSql.begin(async (tx) => {
      await tx`select set_config('role', ${role}, true),
                      set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
      await tx.unsafe(statement);
    });
  const session = { sub: user?.id, role: "authenticated", aud: "authenticated" };
  const refusals: [string, object, string, RegExp][] = [
    [
      "authenticated",
      session,
      "insert into public.character (name) values ('Direct')",
      /table character/,
    ],
    [
      "authenticated",
      session,
      "insert into public.content_source (name) values ('Direct')",
      /table content_source/,
    ],
    ["authenticated", session, "select id from public.character", /table character/],
    ["anon", { role: "anon" }, "select id from public.spell", /table spell/],
    ["anon", { role: "anon" }, "select private.is_admin()", /schema private/],
  ];
  try {
    for (const [role, claims, statement, object] of refusals) {
      await rejects(asDataApi(role, claims, statement), (e: Error) => {
        match(e.message, /^permission denied for /);
        match(e.message, object);
        return true;
      }, `${role}: ${statement}`);
    }
  } finally {
    await adminSql`delete from auth.users where id = ${user?.id ?? null}`;
  }
});

// The hosted platform's Data API logs in as `authenticator` (in the emulation's cluster too,
// scripts/hosted/platform.sql); locally there is no such role.
Deno.test({
  name:
    "SQL privileges: the platform's authenticator, the Data API's login role, cannot switch to the functions' roles and is refused as the roles it can",
  ignore: hosted === null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const url = new URL(hosted!.ownerUrl);
    url.username = "authenticator";
    url.password = "";
    const dataApi = postgres(url.href, { max: 1, onnotice: () => {} });
    const claims = JSON.stringify({ sub: crypto.randomUUID(), role: "authenticated" });
    try {
      for (const role of [REQUEST_ROLES.anon, REQUEST_ROLES.authenticated]) {
        await rejects(
          dataApi.begin((tx) => tx`select set_config('role', ${role}, true)`),
          new RegExp(`permission denied to set role "${role}"`),
        );
      }
      await rejects(
        dataApi.begin(async (tx) => {
          await tx`select set_config('role', 'authenticated', true),
                          set_config('request.jwt.claims', ${claims}, true)`;
          await tx`insert into public.character (name) values ('Direct')`;
        }),
        /permission denied for table character/,
      );
    } finally {
      await dataApi.end();
    }
  },
});

test("SQL privileges: the Data API's roles hold no privilege on any object of the project", async () => {
  const listed = await adminSql<{ line: string }[]>`
    select p.grantee || ' ' || p.privilege || ' on ' || p.object_kind || ' ' || p.object_name ||
      coalesce(' (' || p.column_name || ')', '') as line
    from private.data_api_role_privileges() p`;
  deepStrictEqual(listed.map((r) => r.line), []);
  // Asked again of Postgres's own privilege checks, which count grants to PUBLIC and to any role
  // anon or authenticated inherit, for every relation and function in the project's schemas.
  const [checked] = await adminSql<{ held: string[] }[]>`
    with api_role(name) as (values ('anon'), ('authenticated')),
    project_schema as (select s as oid from private.project_schemas() s)
    select coalesce(array_agg(r.name || ' on ' || o.object order by 1), '{}') as held
    from api_role r
    cross join (
      select c.oid::regclass::text as object, c.oid, 'relation' as kind from pg_class c
      where c.relnamespace in (select oid from project_schema) and c.relkind in ('r', 'p', 'v', 'm', 'S')
      union all
      select p.oid::regprocedure::text, p.oid, 'function' from pg_proc p
      where p.pronamespace in (select oid from project_schema)
      union all
      select n.oid::regnamespace::text, n.oid, 'schema' from pg_namespace n
      where n.oid in (select oid from project_schema) and n.nspname <> 'public'
    ) o
    where case o.kind
      when 'relation' then has_table_privilege(r.name, o.oid,
        'select, insert, update, delete, truncate, references, trigger')
        or has_any_column_privilege(r.name, o.oid, 'select, insert, update, references')
        or (select c.relkind = 'S' from pg_class c where c.oid = o.oid)
          and has_sequence_privilege(r.name, o.oid, 'usage, select, update')
      when 'function' then has_function_privilege(r.name, o.oid, 'execute')
      else has_schema_privilege(r.name, o.oid, 'usage, create')
    end`;
  deepStrictEqual(checked?.held, []);
});

test("SQL privileges: only the functions' login role and the owner may become the functions' roles, which inherit the Data API's", async () => {
  const roles = await adminSql<
    { role: string; login: boolean; inherit: boolean; bypassrls: boolean; members: string[] }[]
  >`
    select r.rolname as role, r.rolcanlogin as login, r.rolinherit as inherit,
      r.rolbypassrls as bypassrls,
      array(select m.member::regrole::text from pg_auth_members m where m.roleid = r.oid
        order by 1) as members
    from pg_roles r where r.rolname in (${REQUEST_ROLES.anon}, ${REQUEST_ROLES.authenticated})
    order by 1`;
  const [owner] = await adminSql<{ name: string }[]>`
    select c.relowner::regrole::text as name from pg_class c
    where c.oid = 'public.character'::regclass`;
  deepStrictEqual(
    roles.map((r) => ({ ...r, members: r.members.filter((m) => m !== owner?.name) })),
    [REQUEST_ROLES.anon, REQUEST_ROLES.authenticated].map((role) => ({
      role,
      login: false,
      inherit: true,
      bypassrls: false,
      members: ["api_authenticator"],
    })),
  );
  const [inherited] = await adminSql<{ anon: boolean; authenticated: boolean }[]>`
    select pg_has_role(${REQUEST_ROLES.anon}, 'anon', 'usage') as anon,
      pg_has_role(${REQUEST_ROLES.authenticated}, 'authenticated', 'usage') as authenticated`;
  deepStrictEqual(inherited, { anon: true, authenticated: true });
  // The platform's authenticator (the hosted Data API's login role) cannot switch to them.
  const [reachable] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from pg_roles a
    cross join (values (${REQUEST_ROLES.anon}), (${REQUEST_ROLES.authenticated})) f(role)
    where a.rolname in ('authenticator', 'anon', 'authenticated')
      and pg_has_role(a.oid, f.role, 'member')`;
  equal(reachable?.n, 0);
});

test("SQL privileges: what the migrating role creates later in public is granted to nobody", async () => {
  const granted = await adminSql.begin(async (tx) => {
    await tx`create table public.later_table (id bigint generated always as identity primary key)`;
    await tx`create function public.later_function() returns int language sql as 'select 1'`;
    const [row] = await tx<{ granted: string[] }[]>`
      select coalesce(array_agg(r.role || ' ' || o.kind order by 1), '{}') as granted
      from unnest(array['anon', 'authenticated', 'service_role', ${REQUEST_ROLES.anon},
        ${REQUEST_ROLES.authenticated}]) r(role)
      cross join (values ('table'), ('sequence'), ('function')) o(kind)
      where case o.kind
        when 'table' then
          has_table_privilege(r.role, 'public.later_table', 'select, insert, update, delete')
        when 'sequence' then
          has_sequence_privilege(r.role, 'public.later_table_id_seq', 'usage, select, update')
        else has_function_privilege(r.role, 'public.later_function()', 'execute')
      end`;
    await tx`drop function public.later_function()`;
    await tx`drop table public.later_table`;
    return row?.granted ?? ["?"];
  });
  deepStrictEqual(granted, []);
});
