/** What one endpoint of the contract says, whichever area it is in. */
import type { z } from "zod";

/** The credentials an endpoint accepts. `none` admits callers without any. */
export type AuthKind = "jwt" | "api_key" | "service" | "none";

/**
 * Where the rate limiter counts an endpoint's requests: in the store every instance shares, or in
 * the answering instance alone (for a path that must depend on no other service).
 */
export type RateLimitStore = "shared" | "in_process";

/** The areas of the API, in the order the OpenAPI document lists them: each endpoint's tag. */
export const API_AREAS = {
  content: "Reference content and homebrew: content sources and the records in them",
  characters: "Characters, and API clients' access to them (the consent flow)",
  campaigns: "Campaigns, their join keys and members, and encounters",
  search: "Full-text, filtered and similarity search over content",
  moderation: "Proposed changes to content (community errata) and their moderation",
  accounts: "Profiles, API clients and game-master groups",
  uploads: "Images stored for portraits and backgrounds",
  ai: "Text generation for the game master's tools",
  diagnostics: "Reports from the web application",
} as const;

/**
 * What a call does to the data it reaches: `read` changes nothing; `additive` adds (a row, a grant,
 * a membership) without overwriting or removing anything; `destructive` may overwrite or remove
 * what exists (every update, delete and create-or-update). MCP tools carry it as their
 * `readOnlyHint` and `destructiveHint`.
 */
export type Effect = "read" | "additive" | "destructive";

/** An area of the API (an OpenAPI tag). */
export type ApiArea = keyof typeof API_AREAS;

/** One endpoint as callers see it. */
export interface EndpointContract<
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** One-line description for the OpenAPI document. */
  summary: string;
  /** The area of the API it belongs to: its tag in the OpenAPI document. */
  area: ApiArea;
  /** What a call does to the data it reaches. */
  effect: Effect;
  /** Accepted credentials. */
  auth: readonly AuthKind[];
  /** The request body schema; its output is what the handler sees. */
  body: B;
  /** The success `data` schema; outgoing data is validated against it. */
  result: R;
  /** Body size cap in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where the rate limiter counts this endpoint's requests (default: shared). */
  rateLimitStore?: RateLimitStore;
  /** `false`: the endpoint touches no database (so it never answers 503). */
  database?: false;
  /** API-key calls target one character and need a grant for it (else 403). */
  perCharacter?: true;
  /**
   * A create-or-update body: without `id` (or with `id` null, 0 or -1) it inserts, and these are
   * the fields an insert needs; with a row id it changes only the fields given.
   */
  createRequires?: readonly string[];
  /** Rules across fields (or about the caller) that the body schema cannot state, in words. */
  rules?: readonly string[];
  /** A failing upstream service is answered with a JSend `error` and HTTP 200. */
  upstream?: true;
}

/** Body cap of endpoints that declare none. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The credentials of most endpoints: an API key or a user's session. */
export const USER_OR_KEY = ["api_key", "jwt"] as const;
