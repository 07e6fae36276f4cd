import { z } from "zod";
import { Id, IdFilter, InstantInput, JsonObject, Timestamp, UserId } from "./common.ts";
import { ContentType, contentTypes } from "./content_types.ts";

/** What a proposal does to its record. */
export const ContentUpdateAction = z.enum(["UPDATE", "CREATE", "DELETE"]).meta({
  id: "ContentUpdateAction",
});
export type ContentUpdateAction = z.infer<typeof ContentUpdateAction>;

/** Where a proposal stands; APPROVED and REJECTED are final. */
export const ContentUpdateState = z.enum(["PENDING", "APPROVED", "REJECTED"]).meta({
  id: "ContentUpdateState",
});
export type ContentUpdateState = z.infer<typeof ContentUpdateState>;

/** What a moderator (or voter) does to a proposal through the bot. */
export const ModerationAction = z.enum(["APPROVE", "REJECT", "UPVOTE", "DOWNVOTE"]).meta({
  id: "ModerationAction",
});
export type ModerationAction = z.infer<typeof ModerationAction>;

/** An id the chat platform assigns (users, messages): a string, since it may exceed 2^53. */
export const DiscordId = z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, {
  error: "expected 1 to 64 letters, digits, - or _",
});

/** A proposal's state and, once decided, the moderator who decided it. */
export const ContentUpdateStatus = z.object({
  state: ContentUpdateState,
  discord_user_id: z.string().optional(),
  discord_user_name: z.string().optional(),
}).meta({ id: "ContentUpdateStatus" });
export type ContentUpdateStatus = z.infer<typeof ContentUpdateStatus>;

/** One voter on a proposal. */
export const ContentUpdateVoter = z.object({ discord_user_id: z.string() });

/** A proposed change to content (community errata). */
export const ContentUpdate = z.object({
  id: Id,
  created_at: Timestamp,
  user_id: UserId,
  type: ContentType,
  /** The record changed or deleted; for CREATE, null until approval creates the record. */
  ref_id: Id.nullable(),
  action: ContentUpdateAction,
  data: JsonObject,
  content_source_id: Id,
  status: ContentUpdateStatus,
  upvotes: z.array(ContentUpdateVoter),
  downvotes: z.array(ContentUpdateVoter),
  /** The moderation bot's message for it; null while the bot has not posted it. */
  discord_msg_id: z.string().nullable(),
}).meta({ id: "ContentUpdate" });
export type ContentUpdate = z.infer<typeof ContentUpdate>;

// Keys of a fetched record that a proposal never writes: the web client sends the whole record
// (with `id: -1` for a new one). Its timestamps and owner are dropped; its `id` and
// `content_source_id` too while they repeat the proposal's (another value is refused by name).
const SERVER_KEYS = ["created_at", "updated_at", "user_id"];

/** Whether a key of a proposal's record only repeats what the proposal itself says. */
function repeatsProposal(
  key: string,
  value: unknown,
  body: { ref_id?: number | undefined; content_source_id: number },
): boolean {
  if (SERVER_KEYS.includes(key)) return true;
  const id = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (key === "id") return id === body.ref_id || id === -1 || id === 0 || id === null;
  return key === "content_source_id" && id === body.content_source_id;
}

/**
 * Body of create-content-update: `ref_id` is required to update or delete a record. `data` may be
 * the whole record as fetched or edited: its timestamps, owner and repeated ids are dropped, and its values
 * are read as the type's create-or-update body reads them (`null` for a required field or `-1` for
 * a linked id meaning "not given").
 */
export const CreateContentUpdateBody = z.object({
  type: ContentType,
  action: ContentUpdateAction,
  data: JsonObject,
  content_source_id: Id,
  ref_id: Id.optional(),
}).transform((body, ctx) => {
  if (body.action !== "CREATE" && body.ref_id === undefined) {
    ctx.issues.push({
      code: "custom",
      path: ["ref_id"],
      input: undefined,
      message: `ref_id is required to ${body.action.toLowerCase()} a record`,
    });
  }
  const proposed = Object.fromEntries(
    Object.entries(body.data).filter(([key, value]) => !repeatsProposal(key, value, body)),
  );
  // A proposal's `data` holds the values the same fields take in the type's create body, so a
  // value that could never apply (a spell of rank 99, a null name) is refused when proposed,
  // naming the field, rather than failing later at approval.
  const checked = contentTypes[body.type].save.safeParse(proposed, { reportInput: true });
  let unknownKeys = false;
  for (const issue of checked.error?.issues ?? []) {
    // Which fields a proposal may carry at all is the database's rule (it names the field).
    if (issue.code === "unrecognized_keys") {
      unknownKeys = true;
      continue;
    }
    ctx.issues.push({
      code: "custom",
      path: ["data", ...issue.path],
      input: issue.input,
      message: issue.message,
    });
  }
  const data = checked.success
    ? JSON.parse(JSON.stringify(checked.data)) as Record<string, unknown>
    : unknownKeys
    ? proposed
    : body.data;
  return { ...body, data };
});
export type CreateContentUpdateBody = z.infer<typeof CreateContentUpdateBody>;

/**
 * Body of find-content-update; all filters are optional and combine with AND. Unknown keys are
 * refused: a filter the endpoint does not have (`name`, `type`) would otherwise be ignored and
 * every visible proposal returned, as if it had matched.
 */
export const FindContentUpdateBody = z.strictObject({
  id: IdFilter.optional(),
  user_id: UserId.optional(),
  state: ContentUpdateState.optional(),
  /** `created_at` within [from, to]; from defaults to the epoch, to to now. */
  created: z.strictObject({
    from: InstantInput.optional(),
    to: InstantInput.optional(),
  }).optional(),
});
export type FindContentUpdateBody = z.infer<typeof FindContentUpdateBody>;

/** Body of update-content-update, sent by the moderation bot with the service secret. */
export const UpdateContentUpdateBody = z.object({
  discord_msg_id: DiscordId,
  discord_user_id: DiscordId,
  discord_user_name: z.string().trim().min(1).max(100),
  state: ModerationAction,
});
export type UpdateContentUpdateBody = z.infer<typeof UpdateContentUpdateBody>;

/** What the service posts to the moderation bot when a proposal is made. */
export const ContentUpdateWebhook = z.object({
  content_update: ContentUpdate,
  submitter: z.object({ user_id: UserId, display_name: z.string() }),
  content_source: z.object({ id: Id, name: z.string() }),
}).meta({ id: "ContentUpdateWebhook" });
export type ContentUpdateWebhook = z.infer<typeof ContentUpdateWebhook>;

/** The bot's answer to the webhook: the id of the message it posted. */
export const ContentUpdateWebhookReply = z.looseObject({ discord_msg_id: DiscordId }).meta({
  id: "ContentUpdateWebhookReply",
});
export type ContentUpdateWebhookReply = z.infer<typeof ContentUpdateWebhookReply>;

/**
 * Keys of a record that a proposal's `data` never sets: the columns the database's
 * `private.content_update_fields` leaves out (ids, timestamps, the source, a source's owner and
 * access settings), and `foundry_id`, the web client's name of `external_id`.
 */
export const NOT_PROPOSED: ReadonlySet<string> = new Set([
  "id",
  "created_at",
  "updated_at",
  "content_source_id",
  "user_id",
  "keys",
  "require_key",
  "is_published",
  "foundry_id",
]);

/** The fields a proposal for a record of `type` may set in `data`. */
export function proposalFields(type: ContentType): string[] {
  return Object.keys(contentTypes[type].resource.shape).filter((key) => !NOT_PROPOSED.has(key));
}
