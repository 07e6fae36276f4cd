/** A configuration the service cannot start with: its message is the one line printed. */
export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

/** The database setting in use: its variable's name (for messages) and its connection string. */
export interface DatabaseSetting {
  name: "DATABASE_URL" | "SUPABASE_DB_URL";
  url: string;
}

/**
 * The database `variables` name: DATABASE_URL, else the platform's SUPABASE_DB_URL (a project that
 * sets its own ignores the platform's, which it cannot change); null when neither is set. Refused
 * without printing the value, which holds a password: a password with a character a URL reserves
 * reads as part of the host.
 */
export function databaseSetting(
  variables: {
    readonly DATABASE_URL?: string | undefined;
    readonly SUPABASE_DB_URL?: string | undefined;
  },
): DatabaseSetting | null {
  const name = variables.DATABASE_URL ? "DATABASE_URL" : "SUPABASE_DB_URL";
  const url = variables[name];
  if (!url) return null;
  if (!URL.canParse(url)) {
    throw new ConfigurationError(
      `Invalid environment: ${name} is not a valid URL: percent-encode any # ? / @ : in its user ` +
        "name or password",
    );
  }
  return { name, url };
}
