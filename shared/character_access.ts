import { z } from "zod";
import { Id, Timestamp, UserId } from "./common.ts";

// Per-character API access: the consent flow's grant, list and revoke, and the client details a
// consent screen shows.

/** Body of grant-character-access, as the authorization URL carries it. */
export const GrantCharacterAccessBody = z.object({
  client_id: Id,
  /** The client's owner (UUID); the grant is refused when the client is not theirs. */
  user_id: UserId,
  character_id: Id,
}).meta({ id: "GrantCharacterAccessBody" });
export type GrantCharacterAccessBody = z.infer<typeof GrantCharacterAccessBody>;

/** A stored grant: this client may read and write this character. */
export const CharacterGrant = z.object({
  client_id: Id,
  character_id: Id,
  granted_at: Timestamp,
}).meta({ id: "CharacterGrant" });
export type CharacterGrant = z.infer<typeof CharacterGrant>;

/** Body of find-character-access: the character; an unknown key is refused. */
export const FindCharacterAccessBody = z.strictObject({ character_id: Id }).meta({
  id: "FindCharacterAccessBody",
});
export type FindCharacterAccessBody = z.infer<typeof FindCharacterAccessBody>;

/** A client authorized on a character, as its owner's authorized-clients section lists it. */
export const AuthorizedClient = z.object({
  client_id: Id,
  client_name: z.string(),
  client_description: z.string().nullable(),
  owner_user_id: UserId,
  owner_display_name: z.string(),
  granted_at: Timestamp,
}).meta({ id: "AuthorizedClient" });
export type AuthorizedClient = z.infer<typeof AuthorizedClient>;

/** Body of revoke-character-access. */
export const RevokeCharacterAccessBody = z.object({ client_id: Id, character_id: Id }).meta({
  id: "RevokeCharacterAccessBody",
});
export type RevokeCharacterAccessBody = z.infer<typeof RevokeCharacterAccessBody>;

/** Body of get-api-client-info: the client and owner named in an authorization URL. */
export const GetApiClientInfoBody = z.object({ client_id: Id, user_id: UserId }).meta({
  id: "GetApiClientInfoBody",
});
export type GetApiClientInfoBody = z.infer<typeof GetApiClientInfoBody>;

/** What a consent screen shows about a client. */
export const ApiClientInfo = z.object({
  client_id: Id,
  name: z.string(),
  description: z.string().nullable(),
  owner_user_id: UserId,
  owner_display_name: z.string(),
}).meta({ id: "ApiClientInfo" });
export type ApiClientInfo = z.infer<typeof ApiClientInfo>;
