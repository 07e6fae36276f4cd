import type { Tx } from "../db/pool.ts";
import { fail } from "../envelope.ts";

/**
 * Refuses unless the caller owns the character: `Character not found` when they cannot see it,
 * `You do not have access to this character` when they see it as its GM, an admin or because it
 * is public.
 */
export async function assertOwnCharacter(tx: Tx, id: number): Promise<void> {
  const [row] = await tx<{ mine: boolean }[]>`
    select user_id = (select auth.uid()) as mine from public.character where id = ${id}`.execute();
  if (!row) throw fail("Character not found");
  if (!row.mine) throw fail("You do not have access to this character");
}
