import { equal, throws } from "node:assert/strict";
import { objectName, parseObjectName } from "./object_name.ts";

const owner = "0b5f6c1e-3f1a-4c2b-9d4e-8a7b6c5d4e3f";
const hash = "0123456789abcdef".repeat(4);

Deno.test("objectName() places a file under its owner, named by content hash", () => {
  const name = objectName(owner, "backgrounds", hash, "jpeg");
  equal(name.bucket, "backgrounds");
  equal(name.path, `${owner}/${hash}.jpg`);
  equal(name.contentType, "image/jpeg");
  throws(() => objectName("../../etc", "portraits", hash, "png"));
  throws(() => objectName(owner, "portraits", "not-a-hash", "png"));
});

Deno.test("parseObjectName() accepts only the exact shape uploads are given", () => {
  equal(parseObjectName("portraits", `${owner}/${hash}.webp`)?.contentType, "image/webp");
  for (
    const [bucket, path] of [
      ["portraits", `${owner}/../${hash}.png`],
      ["portraits", `../${owner}/${hash}.png`],
      ["portraits", `${owner}/${hash}.png/..`],
      ["portraits", `${owner}%2F${hash}.png`],
      ["portraits", `${owner}/${hash}.svg`],
      ["portraits", `${owner}/${hash.toUpperCase()}.png`],
      ["portraits", `${owner}/${hash}.png\0`],
      ["..", `${owner}/${hash}.png`],
      ["avatars", `${owner}/${hash}.png`],
    ]
  ) {
    equal(parseObjectName(bucket!, path!), null, `${bucket}/${path}`);
  }
});
