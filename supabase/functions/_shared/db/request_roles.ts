/**
 * The roles a request transaction switches to: the functions' own, which hold what the project
 * grants its callers and which the Data API's `authenticator` cannot become (migration
 * `20261128009090_function_roles.sql`). They inherit `anon` and `authenticated`, so policies
 * written for those apply to them.
 */
export const REQUEST_ROLES = {
  anon: "functions_anon",
  authenticated: "functions_authenticated",
  service: "service_role",
} as const;
