/**
 * Which endpoints take an `Idempotency-Key`: every create, update, delete and grant, and the two
 * that draw a new code (a repeat must not draw another), except create-api-client, whose answer
 * holds a key shown once and never stored.
 */
const HONOURED = /^(create|update|delete|grant)-|^(reset-campaign-key|gm-regenerate-code)$/;
const NEVER: ReadonlySet<string> = new Set(["create-api-client"]);

/** The request header a caller names a retryable write with. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/**
 * What a key may be: 1 to 255 printable ASCII characters, not starting or ending with a space (a
 * header value can hold it as it is: its ends are trimmed).
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/;
/** The response header that marks an answer given again for a repeated key. */
export const REPLAY_HEADER = "Idempotent-Replayed";

/** Whether `endpoint` keeps its answers for a repeated Idempotency-Key. */
export function honoursIdempotencyKey(endpoint: string): boolean {
  return HONOURED.test(endpoint) && !NEVER.has(endpoint);
}

/** Whether `endpoint` refuses the header outright (rather than ignoring it, as reads do). */
export function refusesIdempotencyKey(endpoint: string): boolean {
  return NEVER.has(endpoint);
}
