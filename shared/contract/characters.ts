// The endpoints of the characters area: characters, and API clients' access to them.
import { z } from "zod";
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
  API_KEY_WRITABLE_FIELDS,
  Character,
  CreateCharacterBody,
  FindCharacterBody,
  FindCharacterResult,
  UpdateCharacterBody,
  UpdateCharacterResult,
} from "../characters.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

/** What an API key may change in a character (the database refuses anything else with 403). */
const API_KEY_CHARACTER_WRITES = [
  `With an API key only ${
    API_KEY_WRITABLE_FIELDS.slice(0, -1).map((f) => `\`${f}\``).join(", ")
  } and \`${API_KEY_WRITABLE_FIELDS.at(-1)}\` may change; any other change is refused with 403.`,
] as const;

export const charactersEndpoints = {
  "create-character": {
    summary: "Creates a character, or with id updates the given fields of one the caller may write",
    area: "characters",
    effect: "destructive",
    auth: USER_OR_KEY,
    perCharacter: true,
    // Every field has a default: a new character needs none.
    createRequires: [],
    rules: [
      "An API key may update a character it holds a grant for, but not create one (403).",
      ...API_KEY_CHARACTER_WRITES,
    ],
    body: CreateCharacterBody,
    result: Character,
  },
  "find-character": {
    summary: "Finds characters: one by id (or null), the caller's own, or those of a campaign",
    area: "characters",
    effect: "read",
    auth: USER_OR_KEY,
    perCharacter: true,
    rules: [
      "With an API key, one integer `id` needs the key's grant on that character (403 without); " +
      "a list of ids, like the other filters, answers the characters among them that the key " +
      "holds a grant for (possibly `[]`).",
    ],
    body: FindCharacterBody,
    result: FindCharacterResult,
  },
  "find-character-access": {
    summary: "Lists the API clients authorized on one of the caller's characters",
    area: "characters",
    effect: "read",
    auth: ["jwt"],
    body: FindCharacterAccessBody,
    result: z.array(AuthorizedClient),
  },
  "get-api-client-info": {
    summary: "What a consent screen shows about an API client: its name and its owner's name",
    area: "characters",
    effect: "read",
    auth: ["jwt"],
    body: GetApiClientInfoBody,
    result: ApiClientInfo,
  },
  "grant-character-access": {
    summary: "The character's owner lets an API client read and write that one character",
    area: "characters",
    effect: "additive",
    auth: ["jwt"],
    body: GrantCharacterAccessBody,
    result: CharacterGrant,
  },
  "revoke-character-access": {
    summary:
      "Withdraws an API client's access to one of the caller's characters, effective at once",
    area: "characters",
    effect: "destructive",
    auth: ["jwt"],
    body: RevokeCharacterAccessBody,
    result: z.literal(true),
  },
  "update-character": {
    summary:
      "Updates the given fields of a character, optionally only if unchanged since a time; answers [row], or __conflict / __forbidden as data",
    area: "characters",
    effect: "destructive",
    auth: USER_OR_KEY,
    perCharacter: true,
    rules: API_KEY_CHARACTER_WRITES,
    body: UpdateCharacterBody,
    result: UpdateCharacterResult,
  },
} as const satisfies Record<string, EndpointContract>;
