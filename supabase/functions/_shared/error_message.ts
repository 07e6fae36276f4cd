/** What an error says, for a log's `reason` or a one-line message. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
