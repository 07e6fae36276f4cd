/**
 * Hands out bearer tokens so that no token ever reaches its rate-limit budget: each token is used
 * at most `usesPerToken` times in a row, then rests until none of those uses can still count in a
 * sliding 60-second window (two fixed windows, plus a margin). The benchmark measures the service,
 * not the limiter refusing it, and production limits stay as they are.
 */
export class TokenPool {
  readonly #ready: string[] = [];
  readonly #resting: { token: string; until: number }[] = [];
  readonly #mint: (() => Promise<string>) | null;
  #current: string | null = null;
  #uses = 0;
  /** Times a caller had to wait because every token was resting. */
  waits = 0;

  /**
   * @param tokens tokens made up front (API keys must exist in the database before use)
   * @param usesPerToken uses of one token in a row, below its bucket's limit
   * @param mint makes another token on demand (JWTs are signed locally), or null for a fixed set
   */
  constructor(
    tokens: string[],
    readonly usesPerToken: number,
    mint: (() => Promise<string>) | null = null,
  ) {
    this.#ready.push(...tokens);
    this.#mint = mint;
  }

  /** How long a used-up token rests: the sliding window spans two 60-second windows. */
  static readonly REST_MS = 121_000;

  /** The token for the next request. */
  async next(): Promise<string> {
    while (true) {
      if (this.#current !== null && this.#uses < this.usesPerToken) {
        this.#uses++;
        return this.#current;
      }
      if (this.#current !== null) {
        this.#resting.push({ token: this.#current, until: Date.now() + TokenPool.REST_MS });
        this.#current = null;
      }
      const now = Date.now();
      while (this.#resting.length > 0 && this.#resting[0]!.until <= now) {
        this.#ready.push(this.#resting.shift()!.token);
      }
      const ready = this.#ready.shift() ?? (this.#mint ? await this.#mint() : null);
      if (ready !== null) {
        if (this.#current === null) {
          this.#current = ready;
          this.#uses = 0;
        } else {
          this.#ready.unshift(ready); // another caller took a token while this one was minted
        }
        continue;
      }
      this.waits++;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
