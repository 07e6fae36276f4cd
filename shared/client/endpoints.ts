import { z } from "zod";
import {
  ApiClient,
  CreateApiClientBody,
  CreatedApiClient,
  DeleteApiClientBody,
  FindApiClientBody,
} from "../accounts.ts";
import {
  Campaign,
  CreateCampaignBody,
  FindCampaignBody,
  RemoveFromCampaignBody,
  ResetCampaignKeyBody,
  ResetCampaignKeyResult,
} from "../campaigns.ts";
import {
  ApiClientInfo,
  AuthorizedClient,
  CharacterGrant,
  FindCharacterAccessBody,
  GetApiClientInfoBody,
  GrantCharacterAccessBody,
  RevokeCharacterAccessBody,
} from "../character_access.ts";
import {
  Character,
  CreateCharacterBody,
  FindCharacterBody,
  FindCharacterResult,
  UpdateCharacterBody,
  UpdateCharacterResult,
} from "../characters.ts";
import {
  AbilityBlock,
  Ancestry,
  Archetype,
  Background,
  Class,
  ClassArchetype,
  ContentSource,
  Creature,
  DeleteContentBody,
  FindAbilityBlockBody,
  FindAbilityBlockResult,
  FindAncestryBody,
  FindAncestryResult,
  FindArchetypeBody,
  FindArchetypeResult,
  FindBackgroundBody,
  FindBackgroundResult,
  FindClassArchetypeBody,
  FindClassArchetypeResult,
  FindClassBody,
  FindClassResult,
  FindContentSourceBody,
  FindContentSourceResult,
  FindCreatureBody,
  FindCreatureResult,
  FindHazardBody,
  FindHazardResult,
  FindItemBody,
  FindItemResult,
  FindLanguageBody,
  FindLanguageResult,
  FindSpellBody,
  FindSpellResult,
  FindTraitBody,
  FindTraitResult,
  FindVersatileHeritageBody,
  FindVersatileHeritageResult,
  Hazard,
  Item,
  Language,
  SaveAbilityBlockBody,
  SaveAncestryBody,
  SaveArchetypeBody,
  SaveBackgroundBody,
  SaveClassArchetypeBody,
  SaveClassBody,
  SaveContentSourceBody,
  SaveCreatureBody,
  SaveHazardBody,
  SaveItemBody,
  SaveLanguageBody,
  SaveSpellBody,
  SaveTraitBody,
  SaveVersatileHeritageBody,
  Spell,
  Trait,
  UnlockContentSourceBody,
  VersatileHeritage,
} from "../content.ts";
import {
  ContentUpdate,
  CreateContentUpdateBody,
  FindContentUpdateBody,
  UpdateContentUpdateBody,
} from "../content_updates.ts";
import { ClientErrorReport } from "../diagnostics.ts";
import { OpenAiRequestBody, OpenAiRequestResult } from "../ai.ts";
import { CreateEncounterBody, Encounter, FindEncounterBody } from "../encounters.ts";
import {
  ContentSourceStats,
  ContentVersion,
  GetContentSourceStatsBody,
  GetContentVersionsBody,
} from "../freshness.ts";
import {
  GmAddToGroupBody,
  GmGroupEmptyBody,
  GmGroupMember,
  GmRemoveFromGroupBody,
} from "../gm_groups.ts";
import { SearchDataBody, SearchDataResult } from "../search.ts";
import {
  PopulateCollectionBody,
  PopulatedCollection,
  QueryCollectionBody,
  SimilarityMatch,
} from "../similarity.ts";
import { UploadedFile, UploadPublicFileBody } from "../uploads.ts";
import {
  DeletedUser,
  DeleteUserBody,
  GetUserBody,
  OwnProfile,
  PublicProfile,
  UpdateUserBody,
} from "../users.ts";

/** What the client needs to know of an endpoint: the schemas of its body and of its success data. */
export interface EndpointContract {
  body: z.ZodType;
  result: z.ZodType;
}

/**
 * Every endpoint by function name, with the same schemas the function declares. Built from the
 * contract in `shared/` only (no server code); `tests/client_test.ts` checks it against the
 * functions folder, so a new, renamed or changed endpoint fails the suite until it is listed here.
 */
export const endpoints = {
  "create-ability-block": { body: SaveAbilityBlockBody, result: AbilityBlock },
  "create-ancestry": { body: SaveAncestryBody, result: Ancestry },
  "create-api-client": { body: CreateApiClientBody, result: CreatedApiClient },
  "create-archetype": { body: SaveArchetypeBody, result: Archetype },
  "create-background": { body: SaveBackgroundBody, result: Background },
  "create-campaign": { body: CreateCampaignBody, result: Campaign },
  "create-character": { body: CreateCharacterBody, result: Character },
  "create-class": { body: SaveClassBody, result: Class },
  "create-class-archetype": { body: SaveClassArchetypeBody, result: ClassArchetype },
  "create-content-source": { body: SaveContentSourceBody, result: ContentSource },
  "create-content-update": { body: CreateContentUpdateBody, result: ContentUpdate },
  "create-creature": { body: SaveCreatureBody, result: Creature },
  "create-encounter": { body: CreateEncounterBody, result: Encounter },
  "create-hazard": { body: SaveHazardBody, result: Hazard },
  "create-item": { body: SaveItemBody, result: Item },
  "create-language": { body: SaveLanguageBody, result: Language },
  "create-spell": { body: SaveSpellBody, result: Spell },
  "create-trait": { body: SaveTraitBody, result: Trait },
  "create-versatile-heritage": { body: SaveVersatileHeritageBody, result: VersatileHeritage },
  "delete-api-client": { body: DeleteApiClientBody, result: z.literal(true) },
  "delete-content": { body: DeleteContentBody, result: z.literal(true) },
  "delete-user": { body: DeleteUserBody, result: DeletedUser },
  "find-ability-block": { body: FindAbilityBlockBody, result: FindAbilityBlockResult },
  "find-ancestry": { body: FindAncestryBody, result: FindAncestryResult },
  "find-api-client": { body: FindApiClientBody, result: z.array(ApiClient) },
  "find-archetype": { body: FindArchetypeBody, result: FindArchetypeResult },
  "find-background": { body: FindBackgroundBody, result: FindBackgroundResult },
  "find-campaign": { body: FindCampaignBody, result: z.array(Campaign) },
  "find-character": { body: FindCharacterBody, result: FindCharacterResult },
  "find-character-access": { body: FindCharacterAccessBody, result: z.array(AuthorizedClient) },
  "find-class": { body: FindClassBody, result: FindClassResult },
  "find-class-archetype": { body: FindClassArchetypeBody, result: FindClassArchetypeResult },
  "find-content-source": { body: FindContentSourceBody, result: FindContentSourceResult },
  "find-content-update": {
    body: FindContentUpdateBody,
    result: z.union([ContentUpdate, z.array(ContentUpdate)]).nullable(),
  },
  "find-creature": { body: FindCreatureBody, result: FindCreatureResult },
  "find-encounter": { body: FindEncounterBody, result: z.array(Encounter) },
  "find-hazard": { body: FindHazardBody, result: FindHazardResult },
  "find-item": { body: FindItemBody, result: FindItemResult },
  "find-language": { body: FindLanguageBody, result: FindLanguageResult },
  "find-spell": { body: FindSpellBody, result: FindSpellResult },
  "find-trait": { body: FindTraitBody, result: FindTraitResult },
  "find-versatile-heritage": {
    body: FindVersatileHeritageBody,
    result: FindVersatileHeritageResult,
  },
  "get-api-client-info": { body: GetApiClientInfoBody, result: ApiClientInfo },
  "get-content-source-stats": { body: GetContentSourceStatsBody, result: ContentSourceStats },
  "get-content-versions": { body: GetContentVersionsBody, result: z.array(ContentVersion) },
  "get-user": { body: GetUserBody, result: z.union([OwnProfile, PublicProfile]) },
  "gm-add-to-group": { body: GmAddToGroupBody, result: z.literal("Added to group") },
  "gm-regenerate-code": { body: GmGroupEmptyBody, result: z.literal("Code regenerated") },
  "gm-remove-from-group": { body: GmRemoveFromGroupBody, result: z.literal("Removed from group") },
  "gm-users-in-group": { body: GmGroupEmptyBody, result: z.array(GmGroupMember) },
  "grant-character-access": { body: GrantCharacterAccessBody, result: CharacterGrant },
  "open-ai-request": { body: OpenAiRequestBody, result: OpenAiRequestResult },
  "remove-from-campaign": { body: RemoveFromCampaignBody, result: z.literal(true) },
  "report-client-error": { body: ClientErrorReport, result: z.literal(true) },
  "reset-campaign-key": { body: ResetCampaignKeyBody, result: ResetCampaignKeyResult },
  "revoke-character-access": { body: RevokeCharacterAccessBody, result: z.literal(true) },
  "search-data": { body: SearchDataBody, result: SearchDataResult },
  "unlock-content-source": { body: UnlockContentSourceBody, result: ContentSource },
  "update-character": { body: UpdateCharacterBody, result: UpdateCharacterResult },
  "update-content-update": { body: UpdateContentUpdateBody, result: z.literal(true) },
  "update-user": { body: UpdateUserBody, result: z.literal(true) },
  "upload-public-file": { body: UploadPublicFileBody, result: UploadedFile },
  "vector-db-populate-collection": { body: PopulateCollectionBody, result: PopulatedCollection },
  "vector-db-query-collection": { body: QueryCollectionBody, result: z.array(SimilarityMatch) },
} as const satisfies Record<string, EndpointContract>;

/** The name of an endpoint (its function folder), such as `find-spell`. */
export type EndpointName = keyof typeof endpoints;
