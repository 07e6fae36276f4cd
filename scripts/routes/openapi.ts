/** Placeholder until this route is built: passes every request on. */
export function openapiRoute(_req: Request): Promise<Response | null> {
  return Promise.resolve(null);
}
