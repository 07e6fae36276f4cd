/**
 * What a hostile caller tries is refused, mostly by the database: the API client cap, throttled
 * access-key guesses, API keys limited to what the consent screen lists, no links to rows the
 * caller cannot read, counts only of readable sources, private search helpers, deactivated
 * accounts, the join key, the request login role, direct upload rows, and floods of made-up keys.
 */
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import postgres from "postgres";
import {
  adminSql,
  call,
  failMessage,
  localOnly,
  makeApiKey,
  makeUser,
  randomIp,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { withinOneMinute } from "./support/http.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

async function homebrewSource(owner: TestUser, body: Record<string, unknown> = {}) {
  return successData(
    await call("create-content-source", { name: `Source ${crypto.randomUUID()}`, ...body }, {
      token: owner.access_token,
    }),
  ).id as number;
}

test("an account may have at most 10 API clients, even when created all at once", async () => {
  const user = await makeUser();
  const answers = await Promise.all(
    Array.from(
      { length: 14 },
      (_, i) => call("create-api-client", { name: `client ${i}` }, { token: user.access_token }),
    ),
  );
  const refused = answers.filter((a) => a.body?.status === "fail");
  const others = answers.filter((a) => a.body?.status !== "success" && a.body?.status !== "fail");
  deepEqual(others.map((a) => `${a.status} ${JSON.stringify(a.body)}`), []);
  equal(answers.filter((a) => a.body?.status === "success").length, 10);
  equal(refused.length, 4);
  match(failMessage(refused[0]!), /^API client limit reached: an account may have at most 10/);
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.api_client where user_id = ${user.user_id}`;
  equal(row?.n, 10);
});

test("wrong access keys are throttled per user and source, and the right key then waits too", async () => {
  const owner = await makeUser({ tier: 2 });
  const guesser = await makeUser();
  const other = await makeUser();
  const key = "correct-horse-battery";
  const locked = await homebrewSource(owner, {
    is_published: true,
    require_key: true,
    keys: { access_key: key },
  });
  for (let i = 0; i < 5; i++) {
    equal(
      failMessage(
        await call("unlock-content-source", { id: locked, access_key: `guess-${i}` }, {
          token: guesser.access_token,
        }),
      ),
      "Invalid access key",
    );
  }
  equal(
    failMessage(
      await call("unlock-content-source", { id: locked, access_key: key }, {
        token: guesser.access_token,
      }),
    ),
    "Too many wrong access keys for this content source: try again in 15 minutes",
  );
  // Another user's guesses are counted apart.
  equal(
    successData(
      await call("unlock-content-source", { id: locked, access_key: key }, {
        token: other.access_token,
      }),
    ).id,
    locked,
  );
});

test("wrong access keys are throttled per address too: many accounts from one address share five", async () => {
  const owner = await makeUser({ tier: 2 });
  const key = "correct-horse-battery";
  const locked = await homebrewSource(owner, {
    is_published: true,
    require_key: true,
    keys: { access_key: key },
  });
  const address = randomIp();
  // Five accounts, one guess each, from one address.
  for (let i = 0; i < 5; i++) {
    const account = await makeUser();
    equal(
      failMessage(
        await call("unlock-content-source", { id: locked, access_key: `guess-${i}` }, {
          token: account.access_token,
          ip: address,
        }),
      ),
      "Invalid access key",
    );
  }
  const sixth = await makeUser();
  equal(
    failMessage(
      await call("unlock-content-source", { id: locked, access_key: "guess-6" }, {
        token: sixth.access_token,
        ip: address,
      }),
    ),
    "Too many wrong access keys for this content source: try again in 15 minutes",
  );
  // The key's holder elsewhere is not locked out.
  const holder = await makeUser();
  equal(
    successData(
      await call("unlock-content-source", { id: locked, access_key: key }, {
        token: holder.access_token,
        ip: randomIp(),
      }),
    ).id,
    locked,
  );
});

test("a key-locked source needs an access key of at least 8 characters", async () => {
  const owner = await makeUser({ tier: 2 });
  match(
    failMessage(
      await call("create-content-source", {
        name: "Short key",
        require_key: true,
        keys: { access_key: "1234" },
      }, { token: owner.access_token }),
    ),
    /access key of at least 8 characters/,
  );
  await rejects(
    adminSql`update public.content_source set require_key = true where id = 1`,
    /official content sources cannot require a key/,
  );
});

test("under an API key a granted character changes only its stats and inventory", async () => {
  const owner = await makeUser({ tier: 1 });
  const developer = await makeUser();
  const character = successData(
    await call("create-character", { name: "Granted", notes: { text: "private" } }, {
      token: owner.access_token,
    }),
  );
  const campaign = successData(
    await call("create-campaign", { name: "Owner's table" }, { token: owner.access_token }),
  );
  const { clientId, apiKey } = await makeApiKey(developer);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: developer.user_id,
      character_id: character.id,
    }, { token: owner.access_token }),
  );

  const stats = successData(
    await call("update-character", {
      id: character.id,
      hp_current: 9,
      experience: 120,
      inventory: { coins: { gp: 3 } },
    }, { token: apiKey }),
  );
  const saved = Array.isArray(stats) ? stats[0] : stats;
  equal(saved.hp_current, 9);

  for (
    const [field, value] of [
      ["options", { is_public: true }],
      ["campaign_id", campaign.id],
      ["notes", { text: "overwritten" }],
      ["name", "Renamed"],
    ] as const
  ) {
    match(
      failMessage(
        await call("update-character", { id: character.id, [field]: value }, { token: apiKey }),
        403,
      ),
      new RegExp(`^API clients may change only a character's stats and inventory: ${field}`),
    );
  }
  const [row] = await adminSql<{ options: unknown; campaign_id: number | null; name: string }[]>`
    select options, campaign_id, name from public.character where id = ${character.id}`;
  equal(JSON.stringify(row?.options ?? {}).includes("is_public"), false);
  equal(row?.campaign_id, null);
  equal(row?.name, "Granted");
  // The owner, signed in, still changes everything.
  const renamed = successData(
    await call("update-character", { id: character.id, name: "Renamed" }, {
      token: owner.access_token,
    }),
  );
  equal((Array.isArray(renamed) ? renamed[0] : renamed).name, "Renamed");
});

test("a record cannot link a row its writer cannot read, and the refusal names the field", async () => {
  const alice = await makeUser({ tier: 2 });
  const mallory = await makeUser({ tier: 2 });
  const aliceSource = await homebrewSource(alice, { is_published: false });
  const hiddenTrait = successData(
    await call("create-trait", { name: "Hidden", content_source_id: aliceSource }, {
      token: alice.access_token,
    }),
  ).id as number;
  const mallorySource = await homebrewSource(mallory);
  const [missing] = await adminSql<{ id: number }[]>`
    select coalesce(max(id), 0) + 1000 as id from public.trait`;
  for (const traitId of [hiddenTrait, missing!.id]) {
    equal(
      failMessage(
        await call("create-class", {
          name: "Probe",
          trait_id: traitId,
          content_source_id: mallorySource,
        }, { token: mallory.access_token }),
      ),
      "Referenced record not found: trait_id",
    );
  }
  const [linked] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.class where trait_id = ${hiddenTrait}`;
  equal(linked?.n, 0);
});

test("subscriber counts are only for sources the caller may read", async () => {
  const stranger = await makeUser();
  const counted = await adminSql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${
      JSON.stringify({ sub: stranger.user_id, role: "authenticated" })
    }, true), set_config('role', ${REQUEST_ROLES.authenticated}, true)`;
    await tx`update public.public_user set subscribed_content_sources = '[{"source_id": 2}]'
      where user_id = ${stranger.user_id}`;
    return await tx<{ n: number }[]>`
      select private.content_source_subscriber_count(2)::int as n`;
  });
  equal(counted[0]?.n, 0, "the official unpublished source is not the stranger's to count");
});

test("the per-table search helpers cannot be called by a request role", async () => {
  await rejects(
    adminSql.begin(async (tx) => {
      await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true)`;
      await tx`select * from private.search_ranked_spell(array[1, 2]::bigint[], 'a', 'a',
        null, null, 10)`;
    }),
    /permission denied for function search_ranked_spell/,
  );
});

test("a deactivated account is refused with its token and with its API keys", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  await adminSql`update public.public_user set deactivated = true where user_id = ${user.user_id}`;
  for (const token of [user.access_token, apiKey]) {
    equal(
      failMessage(await call("find-character", {}, { token }), 403),
      "Account deactivated: this account can no longer use the API",
    );
  }
});

test("an upload row's path must start with its owner's id", async () => {
  const owner = await makeUser({ tier: 1 });
  const other = await makeUser();
  const hash = "a".repeat(64);
  await rejects(
    adminSql.begin(async (tx) => {
      await tx`select set_config('request.jwt.claims', ${
        JSON.stringify({ sub: owner.user_id, role: "authenticated" })
      }, true), set_config('role', ${REQUEST_ROLES.authenticated}, true)`;
      // The only way a row is written: the definer upload-public-file calls.
      await tx`select private.record_upload(
        'portraits', ${`${other.user_id}/${hash}.png`}, 'image/png', 10)`;
    }),
    /uploaded_file_path_is_owners/,
  );
});

test("a player cannot read the campaign's join key, in SQL or through an endpoint", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = successData(
    await call("create-campaign", { name: "Keyed" }, { token: gm.access_token }),
  );
  match(campaign.join_key, /^[0-9a-z]{6}-[0-9a-z]{6}$/);
  const character = successData(
    await call("create-character", { name: "Player" }, { token: player.access_token }),
  ).id;
  await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token });
  successData(
    await call("update-character", { id: character, campaign_id: campaign.id }, {
      token: player.access_token,
    }),
  );

  const asPlayer = async (
    query: (tx: postgres.TransactionSql) => Promise<postgres.Row[]>,
  ): Promise<postgres.Row[]> =>
    await adminSql.begin(async (tx) => {
      await tx`select set_config('request.jwt.claims', ${
        JSON.stringify({ sub: player.user_id, role: "authenticated" })
      }, true), set_config('role', ${REQUEST_ROLES.authenticated}, true)`;
      return await query(tx);
    });
  const [readable] = await asPlayer((tx) =>
    tx`select name from public.campaign where id = ${campaign.id}`
  );
  equal(readable?.name, "Keyed", "the player reads the campaign itself");
  await rejects(
    asPlayer((tx) => tx`select join_key from public.campaign where id = ${campaign.id}`),
    /permission denied for table campaign/,
  );
  await rejects(
    asPlayer((tx) => tx`select * from public.campaign where id = ${campaign.id}`),
    /permission denied for table campaign/,
  );
  const [accessor] = await asPlayer((tx) =>
    tx`select private.campaign_join_key(${campaign.id}) as key`
  );
  equal(accessor?.key, null);

  const seenByPlayer = successData(
    await call("find-campaign", { id: campaign.id }, { token: player.access_token }),
  );
  equal(seenByPlayer.length, 1);
  equal("join_key" in seenByPlayer[0], false);
  const seenByGm = successData(
    await call("find-campaign", { id: campaign.id }, { token: gm.access_token }),
  );
  equal(seenByGm[0].join_key, campaign.join_key);
  const updated = successData(
    await call("create-campaign", { id: campaign.id, name: "Renamed" }, {
      token: gm.access_token,
    }),
  );
  equal(updated.join_key, campaign.join_key);
});

// Local only: on the platform the owner (postgres) is not a member of the role it created.
localOnly(
  "requests connect as a login role that owns nothing and can read nothing itself",
  async () => {
    const { REQUEST_LOGIN_ROLE, requestDatabaseUrl } = await import(
      "../supabase/functions/_shared/env.ts"
    );
    equal(REQUEST_LOGIN_ROLE, "api_authenticator");
    const [role] = await adminSql<
      { inherit: boolean; elevated: boolean; login: boolean; members_of: string[] }[]
    >`
    select r.rolinherit as inherit, r.rolcanlogin as login,
      r.rolsuper or r.rolcreaterole or r.rolcreatedb or r.rolbypassrls or r.rolreplication
        as elevated,
      array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
        where m.member = r.oid order by 1) as members_of
    from pg_roles r where r.rolname = 'api_authenticator'`;
    equal(role?.inherit, false);
    equal(role?.login, true);
    equal(role?.elevated, false);
    equal(
      role?.members_of.join(","),
      `anon,authenticated,${REQUEST_ROLES.anon},${REQUEST_ROLES.authenticated},service_role`,
    );
    const [owned] = await adminSql<{ n: number }[]>`
    select (select count(*) from pg_class where relowner = 'api_authenticator'::regrole)
      + (select count(*) from pg_proc where proowner = 'api_authenticator'::regrole)
      + (select count(*) from pg_namespace where nspowner = 'api_authenticator'::regrole)
      + (select count(*) from pg_type where typowner = 'api_authenticator'::regrole)
      + (select count(*) from information_schema.role_table_grants
         where grantee = 'api_authenticator') as n`;
    equal(Number(owned?.n), 0, "it owns nothing and holds no table privilege");

    // The openers run as the connecting role with a pinned search_path; their lookups are security
    // definer and callable by that role alone.
    const functions = await adminSql<
      { name: string; definer: boolean; config: string[] | null; requests_may: boolean }[]
    >`
    select p.proname as name, p.prosecdef as definer, p.proconfig as config,
      has_function_privilege('authenticated', p.oid, 'execute')
        or has_function_privilege('anon', p.oid, 'execute')
        or has_function_privilege(${REQUEST_ROLES.authenticated}, p.oid, 'execute')
        or has_function_privilege(${REQUEST_ROLES.anon}, p.oid, 'execute')
        or has_function_privilege('service_role', p.oid, 'execute') as requests_may
    from pg_proc p
    where p.pronamespace = 'private'::regnamespace and p.proname in
      ('begin_request', 'begin_api_key_request', 'account_deactivated', 'resolve_api_key')
    order by 1`;
    equal(functions.length, 4);
    for (const f of functions) {
      equal(f.definer, !f.name.startsWith("begin_"), f.name);
      equal(f.requests_may, false, f.name);
      match((f.config ?? []).join(","), /search_path=""/, f.name);
    }

    // As that role, before a request switches: no table can be read or created.
    const asAuthenticator = (query: (tx: postgres.TransactionSql) => Promise<unknown>) =>
      adminSql.begin(async (tx) => {
        await tx`set local role api_authenticator`;
        return await query(tx);
      });
    await rejects(
      asAuthenticator((tx) => tx`select * from public.character`),
      /permission denied for table character/,
    );
    await rejects(
      asAuthenticator((tx) => tx`select * from private.api_key`),
      /permission denied for table api_key/,
    );
    await rejects(
      asAuthenticator((tx) => tx`create table public.authenticator_owned (id int)`),
      /permission denied for schema public/,
    );

    // The embedded database has one session, the owner's, whatever role a connection names.
    if (Deno.env.get("DATABASE_EMBEDDED") === "1") return;
    const direct = postgres(requestDatabaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const [who] = await direct<{ session_user: string }[]>`select session_user`;
      equal(who?.session_user, "api_authenticator");
      await rejects(
        direct`select * from public.character`,
        /permission denied for table character/,
      );
      // And the server's own request connections are that role's.
      successData(await call("find-character", {}, { token: (await makeUser()).access_token }));
      const users = await adminSql<{ usename: string }[]>`
      select distinct usename::text from pg_stat_activity
      where datname = current_database() and application_name = 'rpg-builder-api'
        and pid <> pg_backend_pid() and usename <> current_user`;
      equal(users.map((u) => u.usename).join(","), "api_authenticator");
    } finally {
      await direct.end();
    }
  },
);

test("a signed-in user cannot write uploaded_file rows directly (the REST layer's role)", async () => {
  const user = await makeUser({ tier: 2 });
  const attempt = adminSql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${
      JSON.stringify({ sub: user.user_id, role: "authenticated" })
    }, true)`;
    await tx.unsafe(`set local role ${REQUEST_ROLES.authenticated}`);
    await tx`insert into public.uploaded_file (bucket, path, content_type, byte_size)
      values ('portraits', ${`${user.user_id}/${"a".repeat(64)}.png`}, 'image/png', 10)`;
  });
  await rejects(attempt, /permission denied for table uploaded_file/);
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.uploaded_file where user_id = ${user.user_id}`;
  equal(row?.n, 0);
});

test("a key the server issued goes on from an address that made-up keys have flooded", async () => {
  const user = await makeUser();
  await withinOneMinute(20_000);
  const flooder = randomIp();
  for (let i = 0; i < 31; i++) {
    await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder });
  }
  equal((await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder })).status, 429);
  // A key this server (or instance) has never seen, from the flooded address.
  const { apiKey } = await makeApiKey(user);
  equal(successData(await call("find-spell", { id: 1 }, { token: apiKey, ip: flooder })).id, 1);
  // The same shape with one digit changed is refused without the database, on its address.
  const last = apiKey.at(-1) === "0" ? "1" : "0";
  const forged = apiKey.slice(0, -1) + last;
  equal(
    failMessage(await call("find-spell", { id: 1 }, { token: forged, ip: randomIp() }), 401),
    "Invalid API Key",
  );
  equal((await call("find-spell", { id: 1 }, { token: forged, ip: flooder })).status, 429);
});
