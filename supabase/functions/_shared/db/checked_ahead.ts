/**
 * Runs `work` in the same round trip as a check already sent (such as `assertOwnCharacter(tx, id)`,
 * called as the argument): `work`'s statements go right behind the check's, and the check's refusal
 * outranks whatever `work` answered. `work` runs either way, so what it does must itself be refused
 * (by policies or in SQL) to anyone the check refuses: the check only names the refusal.
 */
export async function checkedAhead<T>(check: Promise<void>, work: () => Promise<T>): Promise<T> {
  const working = work();
  working.catch(() => {}); // the check's refusal, when there is one, is the answer
  await check;
  return await working;
}
