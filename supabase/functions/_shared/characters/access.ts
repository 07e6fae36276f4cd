import type { Tx } from "../db/pool.ts";

/**
 * The statement that refuses unless the caller owns the character (`private.assert_own_character`):
 * `Character not found` when they cannot see it, `You do not have access to this character` when
 * they see it as its GM, an admin or because it is public. Sent ahead of the write it guards, its
 * refusal is the answer and the write never runs.
 */
export function assertOwnCharacter(tx: Tx, id: number) {
  return tx`select private.assert_own_character(${id})`;
}
