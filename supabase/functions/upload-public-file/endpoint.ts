import { uploadsEndpoints } from "@shared/contract/uploads.ts";
import { MAX_UPLOAD_BYTES } from "@shared/uploads.ts";
import { actsForUser } from "../_shared/auth/identity.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { type Bytes, decodeStrictBase64 } from "../_shared/base64.ts";
import { fail } from "../_shared/envelope.ts";
import { refusals } from "../_shared/refusals.ts";
import { sha256Hex } from "../_shared/sha256.ts";
import { type ImageFormat, sniffImageFormat } from "../_shared/storage/image_format.ts";
import { objectName } from "../_shared/storage/object_name.ts";
import { publicFileStore } from "../_shared/storage/public_file_store.ts";

function decodeBase64(text: string): Bytes {
  const bytes = decodeStrictBase64(text);
  if (!bytes) throw fail("Invalid value for data: expected standard base64 with padding");
  return bytes;
}

export const handler = endpoint(uploadsEndpoints, "upload-public-file", {
  // The file is written to Storage before the transaction commits.
  actsOutsideDatabase: true,
  run: async ({ body, caller, tx }) => {
    // Checked before anything is written to Storage, which no rollback undoes.
    if (!actsForUser(caller)) throw refusals.signInRequired();
    const bytes = decodeBase64(body.data);
    if (bytes.byteLength > MAX_UPLOAD_BYTES) {
      throw fail("Invalid value for data: the file is larger than 2 MiB");
    }
    const declared: ImageFormat = body.type === "jpg" ? "jpeg" : body.type;
    if (sniffImageFormat(bytes) !== declared) {
      throw fail(`Invalid value for data: the file is not a ${declared.toUpperCase()} image`);
    }
    const [me] = await tx<{ id: string }[]>`select auth.uid() as id`;
    if (!me?.id) throw fail("User not found");
    const name = objectName(me.id, body.category, sha256Hex(bytes), declared);
    // The row's insert trigger enforces the tier; the same file again is already recorded.
    await tx`
      select private.record_upload(
        ${name.bucket}, ${name.path}, ${name.contentType}, ${bytes.byteLength}::integer)`;
    return { url: await publicFileStore.put(name, bytes) };
  },
});
