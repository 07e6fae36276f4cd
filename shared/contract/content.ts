// The endpoints of the content area: content sources, and what applies to a record of any type
// (each type's own find and create are in content_records.ts).
import { z } from "zod";
import { ContentSource, UnlockContentSourceBody } from "../content/content_source.ts";
import { DeleteContentBody } from "../content/delete_content.ts";
import {
  ContentSourceStats,
  ContentVersion,
  GetContentSourceStatsBody,
  GetContentVersionsBody,
} from "../freshness.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

export const contentEndpoints = {
  "delete-content": {
    summary:
      "Deletes one record of the given type; only its owner (for content, its source's owner) or an admin may",
    area: "content",
    effect: "destructive",
    auth: USER_OR_KEY,
    body: DeleteContentBody,
    result: z.literal(true),
  },
  "get-content-source-stats": {
    summary: "Returns a visible content source and how many users subscribe to it",
    area: "content",
    effect: "read",
    auth: ["jwt", "api_key"],
    body: GetContentSourceStatsBody,
    result: ContentSourceStats,
  },
  "get-content-versions": {
    summary: "Returns the change token (updated_at) of each visible content source among the ids",
    area: "content",
    effect: "read",
    auth: ["jwt", "api_key"],
    body: GetContentVersionsBody,
    result: z.array(ContentVersion),
  },
  "unlock-content-source": {
    summary: "Enters a key-locked content source's access key; the source is readable from then on",
    area: "content",
    effect: "additive",
    auth: USER_OR_KEY,
    body: UnlockContentSourceBody,
    result: ContentSource,
  },
} as const satisfies Record<string, EndpointContract>;
