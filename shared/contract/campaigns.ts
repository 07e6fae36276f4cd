// The endpoints of the campaigns area: campaigns, their join keys and members, and encounters.
import { z } from "zod";
import {
  Campaign,
  CreateCampaignBody,
  FindCampaignBody,
  RemoveFromCampaignBody,
  ResetCampaignKeyBody,
  ResetCampaignKeyResult,
} from "../campaigns.ts";
import {
  CreateEncounterBody,
  Encounter,
  ENCOUNTER_REQUIRED_FIELDS,
  FindEncounterBody,
} from "../encounters.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

export const campaignsEndpoints = {
  "create-campaign": {
    summary:
      "Creates a campaign (supporter tier 1 or higher), or with id updates one the caller owns",
    area: "campaigns",
    effect: "destructive",
    auth: USER_OR_KEY,
    createRequires: ["name"],
    body: CreateCampaignBody,
    result: Campaign,
  },
  "create-encounter": {
    summary:
      "Creates an encounter (supporter tier 1 or higher), or with id updates one the caller owns",
    area: "campaigns",
    effect: "destructive",
    auth: USER_OR_KEY,
    createRequires: ENCOUNTER_REQUIRED_FIELDS,
    rules: [
      "A new encounter needs only `name`: `icon` defaults to `combat`, `color` to `#359fdf`, " +
      "`combatants` to `{list: []}` and `meta_data` to `{}`.",
      "`combatants` and `meta_data` are the client's own: any JSON object is kept as written " +
      "(`combatants.list` a list of objects).",
    ],
    body: CreateEncounterBody,
    result: Encounter,
  },
  "find-campaign": {
    summary: "Finds campaigns by id, owner or join key; a join-key lookup lets the caller join",
    area: "campaigns",
    effect: "additive",
    auth: ["api_key", "jwt", "none"],
    body: FindCampaignBody,
    result: z.array(Campaign),
  },
  "find-encounter": {
    summary: "Finds the caller's own encounters by id or campaign",
    area: "campaigns",
    effect: "read",
    auth: USER_OR_KEY,
    body: FindEncounterBody,
    result: z.array(Encounter),
  },
  "remove-from-campaign": {
    summary: "The campaign's owner removes a character (and its player) from the campaign",
    area: "campaigns",
    effect: "destructive",
    auth: USER_OR_KEY,
    body: RemoveFromCampaignBody,
    result: z.literal(true),
  },
  "reset-campaign-key": {
    summary: "Gives a campaign a new join key; the old key and open join grants stop working",
    area: "campaigns",
    effect: "destructive",
    auth: USER_OR_KEY,
    body: ResetCampaignKeyBody,
    result: ResetCampaignKeyResult,
  },
} as const satisfies Record<string, EndpointContract>;
