/** The find rule: a single integer id gives the one row or null; a list or no id gives the list. */
export function oneOrMany<T>(
  id: number | readonly number[] | undefined,
  rows: T[],
): T | T[] | null {
  return typeof id === "number" ? rows[0] ?? null : rows;
}
