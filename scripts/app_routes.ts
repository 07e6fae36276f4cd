/** Routes outside the functions: the web app, the OpenAPI document and public files. */
export function appRoutes(_req: Request): Promise<Response> {
  return Promise.resolve(
    Response.json({ status: "fail", data: { message: "Not found" } }, { status: 404 }),
  );
}
