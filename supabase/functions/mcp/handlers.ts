/**
 * The handler of every endpoint an assistant may call, imported statically so that the mcp
 * function's bundle holds them; a tool missing here, or one too many, is a type error.
 */
import type { EndpointHandler } from "../_shared/endpoint.ts";
import type { ToolName } from "./tools.ts";
import { handler as createAbilityBlock } from "../create-ability-block/endpoint.ts";
import { handler as createAncestry } from "../create-ancestry/endpoint.ts";
import { handler as createArchetype } from "../create-archetype/endpoint.ts";
import { handler as createBackground } from "../create-background/endpoint.ts";
import { handler as createCampaign } from "../create-campaign/endpoint.ts";
import { handler as createCharacter } from "../create-character/endpoint.ts";
import { handler as createClass } from "../create-class/endpoint.ts";
import { handler as createClassArchetype } from "../create-class-archetype/endpoint.ts";
import { handler as createContentSource } from "../create-content-source/endpoint.ts";
import { handler as createContentUpdate } from "../create-content-update/endpoint.ts";
import { handler as createCreature } from "../create-creature/endpoint.ts";
import { handler as createEncounter } from "../create-encounter/endpoint.ts";
import { handler as createHazard } from "../create-hazard/endpoint.ts";
import { handler as createItem } from "../create-item/endpoint.ts";
import { handler as createLanguage } from "../create-language/endpoint.ts";
import { handler as createSpell } from "../create-spell/endpoint.ts";
import { handler as createTrait } from "../create-trait/endpoint.ts";
import { handler as createVersatileHeritage } from "../create-versatile-heritage/endpoint.ts";
import { handler as deleteContent } from "../delete-content/endpoint.ts";
import { handler as findAbilityBlock } from "../find-ability-block/endpoint.ts";
import { handler as findAncestry } from "../find-ancestry/endpoint.ts";
import { handler as findArchetype } from "../find-archetype/endpoint.ts";
import { handler as findBackground } from "../find-background/endpoint.ts";
import { handler as findCampaign } from "../find-campaign/endpoint.ts";
import { handler as findCharacter } from "../find-character/endpoint.ts";
import { handler as findClass } from "../find-class/endpoint.ts";
import { handler as findClassArchetype } from "../find-class-archetype/endpoint.ts";
import { handler as findContentSource } from "../find-content-source/endpoint.ts";
import { handler as findContentUpdate } from "../find-content-update/endpoint.ts";
import { handler as findCreature } from "../find-creature/endpoint.ts";
import { handler as findEncounter } from "../find-encounter/endpoint.ts";
import { handler as findHazard } from "../find-hazard/endpoint.ts";
import { handler as findItem } from "../find-item/endpoint.ts";
import { handler as findLanguage } from "../find-language/endpoint.ts";
import { handler as findSpell } from "../find-spell/endpoint.ts";
import { handler as findTrait } from "../find-trait/endpoint.ts";
import { handler as findVersatileHeritage } from "../find-versatile-heritage/endpoint.ts";
import { handler as getContentSourceStats } from "../get-content-source-stats/endpoint.ts";
import { handler as getContentVersions } from "../get-content-versions/endpoint.ts";
import { handler as getUser } from "../get-user/endpoint.ts";
import { handler as removeFromCampaign } from "../remove-from-campaign/endpoint.ts";
import { handler as resetCampaignKey } from "../reset-campaign-key/endpoint.ts";
import { handler as searchData } from "../search-data/endpoint.ts";
import { handler as unlockContentSource } from "../unlock-content-source/endpoint.ts";
import { handler as updateCharacter } from "../update-character/endpoint.ts";
import { handler as vectorDbPopulateCollection } from "../vector-db-populate-collection/endpoint.ts";
import { handler as vectorDbQueryCollection } from "../vector-db-query-collection/endpoint.ts";

/** Each tool's endpoint handler: the whole pipeline of that endpoint, as its own function runs it. */
export const toolHandlers: Readonly<Record<ToolName, EndpointHandler>> = {
  "create-ability-block": createAbilityBlock,
  "create-ancestry": createAncestry,
  "create-archetype": createArchetype,
  "create-background": createBackground,
  "create-campaign": createCampaign,
  "create-character": createCharacter,
  "create-class": createClass,
  "create-class-archetype": createClassArchetype,
  "create-content-source": createContentSource,
  "create-content-update": createContentUpdate,
  "create-creature": createCreature,
  "create-encounter": createEncounter,
  "create-hazard": createHazard,
  "create-item": createItem,
  "create-language": createLanguage,
  "create-spell": createSpell,
  "create-trait": createTrait,
  "create-versatile-heritage": createVersatileHeritage,
  "delete-content": deleteContent,
  "find-ability-block": findAbilityBlock,
  "find-ancestry": findAncestry,
  "find-archetype": findArchetype,
  "find-background": findBackground,
  "find-campaign": findCampaign,
  "find-character": findCharacter,
  "find-class": findClass,
  "find-class-archetype": findClassArchetype,
  "find-content-source": findContentSource,
  "find-content-update": findContentUpdate,
  "find-creature": findCreature,
  "find-encounter": findEncounter,
  "find-hazard": findHazard,
  "find-item": findItem,
  "find-language": findLanguage,
  "find-spell": findSpell,
  "find-trait": findTrait,
  "find-versatile-heritage": findVersatileHeritage,
  "get-content-source-stats": getContentSourceStats,
  "get-content-versions": getContentVersions,
  "get-user": getUser,
  "remove-from-campaign": removeFromCampaign,
  "reset-campaign-key": resetCampaignKey,
  "search-data": searchData,
  "unlock-content-source": unlockContentSource,
  "update-character": updateCharacter,
  "vector-db-populate-collection": vectorDbPopulateCollection,
  "vector-db-query-collection": vectorDbQueryCollection,
};
