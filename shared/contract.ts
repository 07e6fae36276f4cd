/**
 * The contract as data: every endpoint of the API by function name, with the credentials it
 * accepts, its body and result schemas, its summary and its body cap. The typed client
 * (`shared/client.ts`), the OpenAPI document (`scripts/tools/openapi.ts`) and the tests read this
 * whole table. Each area's endpoints are declared in `shared/contract/<area>.ts`, and the find and
 * create endpoints of each content type are derived from its registry entry
 * (`shared/contract/content_records.ts`); a function imports its own area or type only
 * (`endpoint(table, name, ...)` in `supabase/functions/_shared/endpoint.ts`), so that it builds no
 * other endpoint's schemas when it starts.
 */
import { type ContentTypeName, contentTypes } from "./content_types.ts";
import { accountsEndpoints } from "./contract/accounts.ts";
import { aiEndpoints } from "./contract/ai.ts";
import { campaignsEndpoints } from "./contract/campaigns.ts";
import { charactersEndpoints } from "./contract/characters.ts";
import { contentEndpoints } from "./contract/content.ts";
import { type ContentRecordEndpoints, contentRecordEndpoints } from "./contract/content_records.ts";
import { diagnosticsEndpoints } from "./contract/diagnostics.ts";
import type { EndpointContract } from "./contract/entry.ts";
import { moderationEndpoints } from "./contract/moderation.ts";
import { searchEndpoints } from "./contract/search.ts";
import { uploadsEndpoints } from "./contract/uploads.ts";

export {
  API_AREAS,
  type ApiArea,
  type AuthKind,
  DEFAULT_MAX_BODY_BYTES,
  type Effect,
  type EndpointContract,
} from "./contract/entry.ts";

type Types = typeof contentTypes;

// Over a union of types the mapped keys would not distribute: one intersection per type.
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends
  (x: infer I) => void ? I : never;
type AllContentRecordEndpoints = UnionToIntersection<
  { [N in ContentTypeName]: ContentRecordEndpoints<Types[N]> }[ContentTypeName]
>;

function allContentRecordEndpoints(): AllContentRecordEndpoints {
  return Object.assign(
    {},
    ...Object.values(contentTypes).map((type) => contentRecordEndpoints(type)),
  );
}

/** Every endpoint by function name. */
export const contract = {
  ...allContentRecordEndpoints(),
  ...accountsEndpoints,
  ...aiEndpoints,
  ...campaignsEndpoints,
  ...charactersEndpoints,
  ...contentEndpoints,
  ...diagnosticsEndpoints,
  ...moderationEndpoints,
  ...searchEndpoints,
  ...uploadsEndpoints,
} satisfies Record<string, EndpointContract>;

/** The name of an endpoint (its function folder), such as `find-spell`. */
export type EndpointName = keyof typeof contract;

/** The contract entry of an endpoint. */
export type ContractOf<N extends EndpointName> = (typeof contract)[N];
