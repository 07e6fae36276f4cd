import { z } from "zod";
import { Timestamp, UserId } from "./common.ts";

// Game-master groups: a GAME-MASTER supporter shares supporter levels 1 and 2 with up to 99
// members who join with the group's access code.

/** Body of gm-add-to-group: the GM to join and their group's access code. */
export const GmAddToGroupBody = z.object({
  gm_user_id: UserId,
  access_code: z.string().trim().min(1).max(100),
}).meta({ id: "GmAddToGroupBody" });
export type GmAddToGroupBody = z.infer<typeof GmAddToGroupBody>;

/** Body of gm-remove-from-group: the member to remove (a GM's member, or the caller themself). */
export const GmRemoveFromGroupBody = z.object({ user_id: UserId }).meta({
  id: "GmRemoveFromGroupBody",
});
export type GmRemoveFromGroupBody = z.infer<typeof GmRemoveFromGroupBody>;

/** Body of gm-users-in-group and gm-regenerate-code: no parameters. */
export const GmGroupEmptyBody = z.object({});

/** A group member as their GM sees them: the public part of the profile only. */
export const GmGroupMember = z.object({
  user_id: UserId,
  display_name: z.string(),
  image_url: z.string().nullable(),
  added_at: Timestamp,
}).meta({ id: "GmGroupMember" });
export type GmGroupMember = z.infer<typeof GmGroupMember>;
