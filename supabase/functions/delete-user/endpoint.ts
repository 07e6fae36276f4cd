import { accountsEndpoints } from "@shared/contract/accounts.ts";
import { afterCommit } from "../_shared/after_commit.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { errorMessage } from "../_shared/error_message.ts";
import { log } from "../_shared/log.ts";
import { type ObjectName, parseObjectName } from "../_shared/storage/object_name.ts";
import { publicFileStore } from "../_shared/storage/public_file_store.ts";

export const handler = endpoint(accountsEndpoints, "delete-user", {
  run: async ({ tx, requestId }) => {
    // The account's stored files, listed before their records go with it (owner-only reads).
    const listing = tx<{ bucket: string; path: string }[]>`
      select bucket, path from public.uploaded_file where user_id = (select auth.uid())`;
    const deleting = tx<{ user_id: string }[]>`
      select private.delete_own_account() as user_id`;
    const [files, rows] = await Promise.all([listing, deleting]);
    const deleted = { userId: rows[0]?.user_id ?? "" };
    const names = files.flatMap((f) => parseObjectName(f.bucket, f.path) ?? []);
    if (names.length === 0) return deleted;
    // Only once the deletion has committed: a refused or failed one keeps the files. The account
    // is gone by then, so a store that fails is logged, not reported to the caller.
    return afterCommit(async () => {
      await publicFileStore.remove(names).catch((e) => logRemovalFailure(names, requestId, e));
      return deleted;
    });
  },
});

function logRemovalFailure(names: ObjectName[], requestId: string, e: unknown): void {
  log.warn("uploaded_files_not_removed", {
    request_id: requestId,
    files: names.length,
    reason: errorMessage(e),
  });
}
