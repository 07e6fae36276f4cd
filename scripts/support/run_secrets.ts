/** The secrets every server needs, which `.env.example` publishes example values of. */
export const SECRET_VARIABLES = ["JWT_SECRET", "CONTENT_UPDATE_SECRET", "API_KEY_SECRET"] as const;

/** A fresh random secret: 24 random bytes in hex. */
export function randomSecret(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(24)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/**
 * The secrets of this test run or benchmark: each one already in this process's environment, else
 * a fresh random value put there. A deployment has secrets of its own and refuses the published
 * example ones, so the servers a run starts get these instead; being in this process's environment,
 * they are also what its own modules sign and verify tokens with.
 */
export function useRunSecrets(): Record<(typeof SECRET_VARIABLES)[number], string> {
  const secrets = {} as Record<(typeof SECRET_VARIABLES)[number], string>;
  for (const name of SECRET_VARIABLES) {
    const value = Deno.env.get(name) || randomSecret();
    Deno.env.set(name, value);
    secrets[name] = value;
  }
  return secrets;
}
