/** A configuration the service cannot start with: its message is the one line printed. */
export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

/**
 * Why a database connection string cannot be used, or null when it can. Said without the value,
 * which holds a password: a password with a character a URL reserves reads as part of the host.
 */
export function databaseUrlProblem(url: string): string | null {
  return URL.canParse(url)
    ? null
    : "is not a valid URL: percent-encode any # ? / @ : in its user name or password";
}
