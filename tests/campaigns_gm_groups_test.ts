import { deepStrictEqual, equal, match } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

async function accessCode(gm: TestUser): Promise<string> {
  successData(await call("gm-regenerate-code", {}, { token: gm.access_token }));
  const [row] = await adminSql<{ access_code: string }[]>`
    select access_code from public.gm_group where gm_user_id = ${gm.user_id}::uuid`;
  if (!row) throw new Error("no group");
  return row.access_code;
}

test("gm-regenerate-code gives a GAME-MASTER a new code and refuses others", async () => {
  const gm = await makeUser({ tier: 4 });
  const first = await accessCode(gm);
  match(first, /^[0-9a-z]{12}$/);
  const second = await accessCode(gm);
  equal(second.length, 12);
  equal(first === second, false);
  const supporter = await makeUser({ tier: 3 });
  equal(
    failMessage(await call("gm-regenerate-code", {}, { token: supporter.access_token })),
    "Failed to regenerate code",
  );
});

test("gm-add-to-group: a member with the right code passes tier 1 and 2 while the GM keeps the tier", async () => {
  const gm = await makeUser({ tier: 4 });
  const member = await makeUser({ tier: 0 });
  const code = await accessCode(gm);
  equal(
    failMessage(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: "wrongcode123" }, {
        token: member.access_token,
      }),
    ),
    "Failed to add to group",
  );
  equal(
    failMessage(await call("create-campaign", { name: "Not yet" }, { token: member.access_token })),
    "User does not have access: creating a campaign requires supporter tier 1 or higher",
  );
  equal(
    successData(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
        token: member.access_token,
      }),
    ),
    "Added to group",
  );
  successData(await call("create-campaign", { name: "Now" }, { token: member.access_token }));
  await adminSql`insert into public.character (user_id, name)
                 select ${member.user_id}::uuid, 'Many ' || n from generate_series(1, 7) n`;
  successData(await call("create-character", {}, { token: member.access_token }));

  // When the GM loses the GAME-MASTER tier the members' levels go with it.
  await adminSql`update public.public_user set supporter_tier = 3
                 where user_id = ${gm.user_id}::uuid`;
  equal(
    failMessage(await call("create-campaign", { name: "Lapsed" }, { token: member.access_token })),
    "User does not have access: creating a campaign requires supporter tier 1 or higher",
  );
});

test("gm-add-to-group refuses a GAME-MASTER, an unknown GM and a full group", async () => {
  const gm = await makeUser({ tier: 4 });
  const otherGm = await makeUser({ tier: 4 });
  const code = await accessCode(gm);
  equal(
    failMessage(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
        token: otherGm.access_token,
      }),
    ),
    "Failed to add to group",
  );
  const member = await makeUser();
  equal(
    failMessage(
      await call("gm-add-to-group", { gm_user_id: member.user_id, access_code: code }, {
        token: member.access_token,
      }),
    ),
    "Failed to add to group",
  );
  await adminSql`
    with fresh as (
      insert into auth.users (id, email)
      select gen_random_uuid(), 'gm-filler-' || gen_random_uuid() || '@example.test' from generate_series(1, 99)
      returning id
    )
    insert into public.gm_group_member (user_id, gm_user_id)
    select id, ${gm.user_id}::uuid from fresh`;
  equal(
    failMessage(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
        token: member.access_token,
      }),
    ),
    "Failed to add to group",
  );
});

test("gm-users-in-group lists members' public fields; others get []", async () => {
  const gm = await makeUser({ tier: 4 });
  const member = await makeUser();
  await adminSql`update public.public_user set display_name = 'Merisiel'
                 where user_id = ${member.user_id}::uuid`;
  const code = await accessCode(gm);
  successData(
    await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
      token: member.access_token,
    }),
  );
  const members = successData(await call("gm-users-in-group", {}, { token: gm.access_token }));
  equal(members.length, 1);
  deepStrictEqual(Object.keys(members[0]).sort(), [
    "added_at",
    "display_name",
    "image_url",
    "user_id",
  ]);
  equal(members[0].user_id, member.user_id);
  equal(members[0].display_name, "Merisiel");
  deepStrictEqual(
    successData(await call("gm-users-in-group", {}, { token: member.access_token })),
    [],
  );
});

test("gm-remove-from-group: the GM removes a member, a member removes themself", async () => {
  const gm = await makeUser({ tier: 4 });
  const first = await makeUser();
  const second = await makeUser();
  const stranger = await makeUser();
  const code = await accessCode(gm);
  for (const member of [first, second]) {
    successData(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
        token: member.access_token,
      }),
    );
  }
  equal(
    failMessage(
      await call("gm-remove-from-group", { user_id: first.user_id }, {
        token: stranger.access_token,
      }),
    ),
    "Failed to remove from group",
  );
  equal(
    successData(
      await call("gm-remove-from-group", { user_id: first.user_id }, { token: gm.access_token }),
    ),
    "Removed from group",
  );
  equal(
    successData(
      await call("gm-remove-from-group", { user_id: second.user_id }, {
        token: second.access_token,
      }),
    ),
    "Removed from group",
  );
  equal(
    failMessage(
      await call("gm-remove-from-group", { user_id: second.user_id }, {
        token: second.access_token,
      }),
    ),
    "Failed to remove from group",
  );
  deepStrictEqual(successData(await call("gm-users-in-group", {}, { token: gm.access_token })), []);
});

test("the GM group tools take a signed-in session only", async () => {
  const gm = await makeUser({ tier: 4 });
  const { apiKey } = await makeApiKey(gm);
  match(
    failMessage(await call("gm-users-in-group", {}, { token: apiKey }), 401),
    /API keys cannot call this endpoint/,
  );
  equal((await call("gm-regenerate-code", {})).status, 401);
});
