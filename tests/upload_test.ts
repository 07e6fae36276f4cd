import { deepStrictEqual, equal, match, ok } from "node:assert/strict";

// Uploaded files go to a throwaway folder when this file runs alone: set before the harness starts
// the server, which reads its environment once. When all test files run in one module
// (all_test.ts) the server may already be up; files then go to its folder, and the folders of the
// users made here are removed at the end either way.
const storageDir = await Deno.makeTempDir({ prefix: "rpg-storage-test-" });
Deno.env.set("STORAGE_DIR", storageDir);
Deno.env.set("STORAGE_BACKEND", "local");
const { adminSql, call, failMessage, makeApiKey, makeUser, server, successData, test } =
  await import("./_harness.ts");
const { MAX_UPLOAD_BYTES } = await import("@shared/uploads.ts");
const { callSignedOut } = await import("./support/signed_out.ts");
const { localStorageRoot } = await import(
  "../supabase/functions/_shared/storage/local_store.ts"
);
const root = localStorageRoot();
const uploaders: string[] = [];
function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}
globalThis.addEventListener("unload", () => {
  for (const userId of uploaders) {
    for (const bucket of ["portraits", "backgrounds"]) {
      removeIfPresent(`${root}/${bucket}/${userId}`);
    }
  }
  removeIfPresent(storageDir);
});

/** A user whose uploaded files are removed when the tests end. */
async function uploader(tier: number) {
  const user = await makeUser({ tier });
  uploaders.push(user.user_id);
  return user;
}

const SIGNATURES = {
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  jpeg: [0xff, 0xd8, 0xff, 0xe0],
  webp: [0x52, 0x49, 0x46, 0x46, 0x10, 0, 0, 0, 0x57, 0x45, 0x42, 0x50],
};

/** Bytes that start with the format's magic number, followed by random (unique) filler. */
function image(format: keyof typeof SIGNATURES, size = 256): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  crypto.getRandomValues(bytes.subarray(0, Math.min(size, 65536)));
  bytes.set(SIGNATURES[format]);
  return bytes;
}

async function fetchUrl(url: string, method = "GET"): Promise<Response> {
  return await fetch(url, { method });
}

test("upload-public-file stores an image and the returned URL serves the same bytes", async () => {
  const user = await uploader(1);
  for (
    const [format, type, contentType] of [
      ["png", "png", "image/png"],
      ["jpeg", "jpg", "image/jpeg"],
      ["jpeg", "jpeg", "image/jpeg"],
      ["webp", "webp", "image/webp"],
    ] as const
  ) {
    const bytes = image(format);
    const { url } = successData(
      await call("upload-public-file", { data: bytes.toBase64(), category: "portraits", type }, {
        token: user.access_token,
      }),
    );
    ok(
      url.startsWith(`${server.appUrl}/storage/v1/object/public/portraits/${user.user_id}/`),
      url,
    );
    const res = await fetchUrl(url);
    equal(res.status, 200);
    equal(res.headers.get("content-type"), contentType);
    equal(res.headers.get("x-content-type-options"), "nosniff");
    deepStrictEqual(new Uint8Array(await res.arrayBuffer()), bytes);
  }
});

test("upload-public-file names files by content hash: the same image is stored once", async () => {
  const user = await uploader(3);
  const data = image("png").toBase64();
  const body = { data, category: "backgrounds", type: "png" };
  const first = successData(await call("upload-public-file", body, { token: user.access_token }));
  const { apiKey } = await makeApiKey(user);
  const again = successData(await call("upload-public-file", body, { token: apiKey }));
  equal(again.url, first.url);
  match(first.url, /\/backgrounds\/[0-9a-f-]{36}\/[0-9a-f]{64}\.png$/);
  const [row] = await adminSql`select count(*)::int as n, min(byte_size) as size
    from public.uploaded_file where user_id = ${user.user_id}`;
  deepStrictEqual({ ...row }, { n: 1, size: 256 });
  const files = [];
  for await (const f of Deno.readDir(`${root}/backgrounds/${user.user_id}`)) files.push(f);
  equal(files.length, 1);
});

test("delete-user removes the account's stored files once the deletion commits", async () => {
  const user = await uploader(3);
  const other = await uploader(3);
  const upload = async (token: string, category: string) =>
    successData(
      await call("upload-public-file", { data: image("png").toBase64(), category, type: "png" }, {
        token,
      }),
    ).url as string;
  const portrait = await upload(user.access_token, "portraits");
  const background = await upload(user.access_token, "backgrounds");
  const kept = await upload(other.access_token, "portraits");
  successData(await call("delete-user", {}, { token: user.access_token }));
  for (const url of [portrait, background]) {
    const res = await fetchUrl(url);
    await res.body?.cancel();
    equal(res.status, 404, url);
  }
  const res = await fetchUrl(kept);
  await res.body?.cancel();
  equal(res.status, 200, "another user's file stays");
});

test("upload-public-file refuses bytes whose magic number does not match the type", async () => {
  const user = await uploader(1);
  const script = new TextEncoder().encode("<script>alert(document.cookie)</script>");
  const cases: [Uint8Array<ArrayBuffer>, string, string][] = [
    [script, "png", "Invalid value for data: the file is not a PNG image"],
    [image("png"), "jpeg", "Invalid value for data: the file is not a JPEG image"],
    [image("jpeg"), "webp", "Invalid value for data: the file is not a WEBP image"],
    [image("webp"), "png", "Invalid value for data: the file is not a PNG image"],
    [new Uint8Array([0x89, 0x50]), "png", "Invalid value for data: the file is not a PNG image"],
  ];
  for (const [bytes, type, message] of cases) {
    equal(
      failMessage(
        await call("upload-public-file", { data: bytes.toBase64(), category: "portraits", type }, {
          token: user.access_token,
        }),
      ),
      message,
    );
  }
  const [row] = await adminSql`select count(*)::int as n from public.uploaded_file
    where user_id = ${user.user_id}`;
  equal(row?.n, 0);
});

test("upload-public-file refuses invalid base64, unknown categories and types", async () => {
  const user = await uploader(1);
  const token = user.access_token;
  const data = image("png").toBase64();
  const cases: [unknown, RegExp][] = [
    [
      { data: "not base64!", category: "portraits", type: "png" },
      /^Invalid value for data: expected standard base64/,
    ],
    [
      { data: "iVBORw0KGgo", category: "portraits", type: "png" },
      /^Invalid value for data: expected standard base64/,
    ],
    [
      { data: "AB==", category: "portraits", type: "png" },
      /^Invalid value for data: expected standard base64/,
    ],
    [
      { data: `data:image/png;base64,${data}`, category: "portraits", type: "png" },
      /^Invalid value for data/,
    ],
    [{ data, category: "avatars", type: "png" }, /^Invalid value for category/],
    [{ data, category: "../portraits", type: "png" }, /^Invalid value for category/],
    [{ data, category: "portraits", type: "gif" }, /^Invalid value for type/],
    [{ data, category: "portraits", type: "svg" }, /^Invalid value for type/],
    [{ category: "portraits", type: "png" }, /^Missing required field: data$/],
    [{ data: "", category: "portraits", type: "png" }, /^Invalid value for data/],
  ];
  for (const [body, expected] of cases) {
    match(failMessage(await call("upload-public-file", body, { token })), expected);
  }
});

test("upload-public-file needs supporter tier 1 or higher", async () => {
  const free = await makeUser({ tier: 0 });
  const body = { data: image("png").toBase64(), category: "portraits", type: "png" };
  const res = await call("upload-public-file", body, { token: free.access_token });
  equal(
    failMessage(res),
    "User does not have access: uploading files requires supporter tier 1 or higher",
  );
  equal(res.body.data.required_tier, 1);
  const paragon = await uploader(0);
  await adminSql`update public.public_user set is_community_paragon = true
    where user_id = ${paragon.user_id}`;
  ok(successData(await call("upload-public-file", body, { token: paragon.access_token })).url);
  match(failMessage(await callSignedOut("upload-public-file", body), 401), /^Signed out: sign in/);
});

test("upload-public-file caps the file at 2 MiB: an oversize body is 413 before decoding", async () => {
  const user = await uploader(1);
  const token = user.access_token;
  const exact = image("png", MAX_UPLOAD_BYTES);
  ok(
    successData(
      await call("upload-public-file", {
        data: exact.toBase64(),
        category: "portraits",
        type: "png",
      }, {
        token,
      }),
    ).url,
  );
  // One byte over still fits the body cap (base64 rounds up), so it is decoded and refused.
  const over = image("png", MAX_UPLOAD_BYTES + 1);
  match(
    failMessage(
      await call("upload-public-file", {
        data: over.toBase64(),
        category: "portraits",
        type: "png",
      }, {
        token,
      }),
    ),
    /^Invalid value for data: the file is larger than 2 MiB/,
  );
  const huge = image("png", 3 * 1024 * 1024);
  const res = await call("upload-public-file", {
    data: huge.toBase64(),
    category: "portraits",
    type: "png",
  }, { token });
  match(failMessage(res, 413), /^Request body too large/);
});

test("the storage route serves only names uploads are given, so no path can leave the folder", async () => {
  const user = await uploader(1);
  const { url } = successData(
    await call("upload-public-file", {
      data: image("png").toBase64(),
      category: "portraits",
      type: "png",
    }, { token: user.access_token }),
  );
  const head = await fetchUrl(url, "HEAD");
  equal(head.status, 200);
  equal(head.headers.get("content-type"), "image/png");
  await head.body?.cancel();
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(`${root}/secret.txt`, "secret");
  const base = `${server.appUrl}/storage/v1/object/public`;
  const path = new URL(url).pathname.split("/").slice(-2).join("/");
  for (
    const probe of [
      `${base}/portraits/..%2Fsecret.txt`,
      `${base}/portraits/%2e%2e/secret.txt`,
      `${base}/..%2f..%2fsecret.txt`,
      `${base}/secret.txt`,
      `${base}/backgrounds/${path}`,
      `${base}/portraits/${path.toUpperCase()}`,
      `${base}/portraits/${path}.txt`,
      `${base}/portraits/${path.replace(".png", ".jpg")}`,
      `${base}/portraits/${crypto.randomUUID()}/${"0".repeat(64)}.png`,
    ]
  ) {
    const res = await fetchUrl(probe);
    equal(res.status, 404, probe);
    await res.body?.cancel();
  }
  const post = await fetch(url, { method: "POST" });
  equal(post.status, 405);
  await post.body?.cancel();
  await Deno.remove(`${root}/secret.txt`);
});
