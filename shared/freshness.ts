import { z } from "zod";
import { Id, JsonObject, Timestamp } from "./common.ts";

/** Body of get-content-versions: the content sources a client has cached. */
export const GetContentVersionsBody = z.object({
  ids: z.array(Id).min(1, "ids needs at least one id").max(500, "ids takes at most 500 ids"),
});
export type GetContentVersionsBody = z.infer<typeof GetContentVersionsBody>;

/** A content source's change token: `updated_at` moves whenever the source or its content does. */
export const ContentVersion = z.object({ id: Id, updated_at: Timestamp }).meta({
  id: "ContentVersion",
});
export type ContentVersion = z.infer<typeof ContentVersion>;

/** Body of get-content-source-stats. */
export const GetContentSourceStatsBody = z.object({ content_source_id: Id });
export type GetContentSourceStatsBody = z.infer<typeof GetContentSourceStatsBody>;

/** A content source and how many users subscribe to it. */
export const ContentSourceStats = z.object({
  source: JsonObject,
  count: z.int().nonnegative(),
}).meta({ id: "ContentSourceStats" });
export type ContentSourceStats = z.infer<typeof ContentSourceStats>;
