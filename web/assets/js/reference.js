// The API reference: Swagger UI (vendored from npm, served by this origin) over the OpenAPI
// document published beside the pages.
globalThis.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#api",
  deepLinking: true,
  tryItOutEnabled: false,
  supportedSubmitMethods: [],
});
