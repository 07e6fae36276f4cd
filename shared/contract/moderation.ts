// The endpoints of the moderation area: proposed changes to content and their moderation.
import { z } from "zod";
import {
  ContentUpdate,
  CreateContentUpdateBody,
  FindContentUpdateBody,
  UpdateContentUpdateBody,
} from "../content_updates.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

export const moderationEndpoints = {
  "create-content-update": {
    summary: "Proposes a change to content; moderators approve or reject it through the bot",
    area: "moderation",
    effect: "additive",
    auth: USER_OR_KEY,
    rules: [
      "`data` holds the fields the proposal sets, as create-<type> takes them: a CREATE needs the " +
      "fields a new record of that type needs, an UPDATE at least one field; UPDATE and DELETE " +
      "name the record in `ref_id`, which must be a record of that type in `content_source_id`.",
      "A content source (`type` content-source) can only be updated, with `ref_id` equal to " +
      "`content_source_id`.",
      "A whole fetched record may be sent as `data`: its `created_at`, `updated_at` and " +
      "`user_id`, an `id` that is `ref_id` (or -1, 0 or null) and a `content_source_id` that is " +
      "the proposal's are dropped; `null` for a field that cannot be null is read as not given.",
    ],
    body: CreateContentUpdateBody,
    result: ContentUpdate,
  },
  "find-content-update": {
    summary: "Finds content update proposals, sorted by id",
    area: "moderation",
    effect: "read",
    auth: USER_OR_KEY,
    body: FindContentUpdateBody,
    result: z.union([ContentUpdate, z.array(ContentUpdate)]).nullable(),
  },
  "update-content-update": {
    summary: "The moderation bot approves, rejects or votes on a proposal (service secret only)",
    area: "moderation",
    effect: "destructive",
    auth: ["service"],
    body: UpdateContentUpdateBody,
    result: z.literal(true),
  },
} as const satisfies Record<string, EndpointContract>;
