/** Placeholder until this route is built: passes every request on. */
export function storageRoute(_req: Request): Promise<Response | null> {
  return Promise.resolve(null);
}
