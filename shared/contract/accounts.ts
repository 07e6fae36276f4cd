// The endpoints of the accounts area: profiles, API clients and game-master groups.
import { z } from "zod";
import {
  ApiClient,
  CreateApiClientBody,
  CreatedApiClient,
  DeleteApiClientBody,
  FindApiClientBody,
} from "../accounts.ts";
import {
  GmAddToGroupBody,
  GmGroupEmptyBody,
  GmGroupMember,
  GmRemoveFromGroupBody,
} from "../gm_groups.ts";
import {
  DeletedUser,
  DeleteUserBody,
  GetUserBody,
  OwnProfile,
  PublicProfile,
  UpdateUserBody,
} from "../users.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

export const accountsEndpoints = {
  "create-api-client": {
    summary: "Creates an API client for the signed-in user and returns its key, shown this once",
    area: "accounts",
    effect: "additive",
    auth: ["jwt"],
    body: CreateApiClientBody,
    result: CreatedApiClient,
  },
  "delete-api-client": {
    summary: "Revokes one of the signed-in user's API clients; its key stops working at once",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    body: DeleteApiClientBody,
    result: z.literal(true),
  },
  "delete-user": {
    summary:
      "Deletes the caller's account and everything it owns; refused while it owns content sources",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    body: DeleteUserBody,
    result: DeletedUser,
  },
  "find-api-client": {
    summary: "Lists the signed-in user's API clients, without keys",
    area: "accounts",
    effect: "read",
    auth: ["jwt"],
    body: FindApiClientBody,
    result: z.array(ApiClient),
  },
  "get-user": {
    summary: "Reads the caller's own profile, or another user's public profile by id or _id",
    area: "accounts",
    effect: "read",
    auth: USER_OR_KEY,
    rules: [
      "With an API key the body is `{}`: the key's owner's own profile, without what a key may " +
      "not learn (`patreon.game_master.access_code` is null and `api.clients` is empty).",
    ],
    body: GetUserBody,
    result: z.union([OwnProfile, PublicProfile]),
  },
  "gm-add-to-group": {
    summary:
      "Joins a GAME-MASTER supporter's group with its access code (replacing any earlier group)",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    body: GmAddToGroupBody,
    result: z.literal("Added to group"),
  },
  "gm-regenerate-code": {
    summary: "Gives the caller's GM group a new access code; members stay",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    body: GmGroupEmptyBody,
    result: z.literal("Code regenerated"),
  },
  "gm-remove-from-group": {
    summary: "Removes a member from the caller's GM group, or the caller from their own group",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    body: GmRemoveFromGroupBody,
    result: z.literal("Removed from group"),
  },
  "gm-users-in-group": {
    summary:
      "Lists the members of the caller's GM group (empty unless the caller is a GAME-MASTER)",
    area: "accounts",
    effect: "read",
    auth: ["jwt"],
    body: GmGroupEmptyBody,
    result: z.array(GmGroupMember),
  },
  "update-user": {
    summary: "Updates the caller's editable profile fields; only the fields given change",
    area: "accounts",
    effect: "destructive",
    auth: ["jwt"],
    rules: [
      "`subscribed_content_sources` lists each `source_id` at most once.",
      "`site_theme` is at most 4000 characters long as JSON.",
      "`api.clients`, when given, becomes the caller's API clients: an entry with a new `api_key` (a lower-case version 4 UUID the browser drew) is created with it, kept only as a hash; listed clients are renamed or given the entry's new key; unlisted clients are revoked. A key already in use is refused.",
    ],
    body: UpdateUserBody,
    result: z.literal(true),
  },
} as const satisfies Record<string, EndpointContract>;
