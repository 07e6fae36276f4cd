/**
 * What the mcp function uses of the MCP SDK, imported in one place. The SDK's package exports
 * its subpaths as `./*`, typed as `./dist/esm/*.d.ts`, so `types.js` is typed as `types.js.d.ts`,
 * a file that does not exist: Deno's type check finds it only when it manages node_modules itself
 * (`--node-modules-dir=auto`), not in the folder `deno install` writes (this project's `manual`).
 * Subpaths the package exports by name need nothing; each `@ts-types` below names the subpath without `.js`, whose declaration file exists; it can go
 * once the SDK types its wildcard subpaths by their `.js` names.
 */
export { Server } from "@modelcontextprotocol/sdk/server";
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  type CallToolResult,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
