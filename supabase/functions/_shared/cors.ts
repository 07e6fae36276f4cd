/** CORS headers for every response: browsers and supabase-js call from other origins. */
export const corsHeaders: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "authorization, x-client-info, apikey, content-type, idempotency-key",
  "Access-Control-Expose-Headers": "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, " +
    "Retry-After, X-Request-Id, Idempotent-Replayed",
  "Access-Control-Max-Age": "86400",
};
