/**
 * The mcp function: the API's tools for AI assistants over MCP's Streamable HTTP transport. It is
 * stateless, as a function instance may be new on any request: each POST gets a fresh server and
 * transport, answers its JSON-RPC message (or batch) in one JSON response, and keeps nothing; so
 * there is no session, no event stream to open with GET and none to end with DELETE (405).
 */
import { bearerHeader } from "../_shared/auth/classify_bearer.ts";
import { errorBody, Fail, failBody, jsonResponse } from "../_shared/envelope.ts";
import { log } from "../_shared/log.ts";
import { readBodyCapped } from "../_shared/read_body.ts";
import { z } from "zod";
import type { FunctionHandler } from "../_shared/serve.ts";
import { type CallOrigin, callTool } from "./call_tool.ts";
import {
  AjvJsonSchemaValidator,
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "./sdk.ts";
import { largestToolBody, listTools } from "./tools.ts";

/** CORS for browser-based MCP hosts: the transport's own headers besides the bearer. */
const corsHeaders: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "authorization, apikey, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id",
  "Access-Control-Expose-Headers": "X-Request-Id, WWW-Authenticate",
  "Access-Control-Max-Age": "86400",
};

/** A JSON-RPC message or batch: the largest tool body and the message around it. */
const MAX_MESSAGE_BYTES = largestToolBody() + 64 * 1024;

const SERVER_INFO = { name: "rpg-builder", version: "1.0.0" };

const INSTRUCTIONS = "Tools of a tabletop RPG character builder's API: reference content and " +
  "homebrew, characters an API client was granted, campaigns, encounters and search. Each tool " +
  "is the API endpoint of its name, with the same rules and the same rate budget (one request " +
  'per call). A result is the API\'s JSend envelope: `{status: "success", data}`, or a tool ' +
  "error whose message says what was refused and why.";

const CALL_TOOL_METHOD = z.looseObject({ method: z.literal("tools/call") });

// Ajv compiles schemas only for features these tools do not use (elicitation); one for all.
const validator = new AjvJsonSchemaValidator();

/** The MCP endpoint, as `Deno.serve` takes it. */
export const handler: FunctionHandler = Object.assign(answer, { usesDatabase: true });

async function answer(req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
  const started = performance.now();
  const requestId = crypto.randomUUID();
  let response: Response;
  try {
    response = await exchange(req, { req, info, resultBytes: 0 });
  } catch (e) {
    response = e instanceof Fail ? refusal(e) : unexpected(e, requestId);
  }
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(corsHeaders)) headers.set(name, value);
  headers.set("X-Request-Id", requestId);
  log.info("request", {
    fn: "mcp",
    status: response.status,
    ms: Math.round(performance.now() - started),
    request_id: requestId,
  });
  return new Response(response.body, { status: response.status, headers });
}

async function exchange(req: Request, origin: CallOrigin): Promise<Response> {
  if (req.method === "OPTIONS") return new Response(null, { status: 204 });
  if (req.method !== "POST") {
    throw new Fail(
      "Method not allowed: MCP messages are sent with POST; this server keeps no sessions or " +
        "event streams",
      405,
      {},
      { Allow: "POST, OPTIONS" },
    );
  }
  if (bearerHeader(req.headers) === null) {
    // An assistant host acts for someone: unlike the API's signed-out reads, MCP asks for a bearer.
    throw new Fail(
      "Missing bearer token: send Authorization: Bearer <API key or JWT>",
      401,
      {},
      { "WWW-Authenticate": "Bearer" },
    );
  }
  // Read here, under the API's cap and time limit, rather than by the transport.
  const text = await readBodyCapped(req, MAX_MESSAGE_BYTES);
  const refused = batchRefusal(text);
  if (refused !== null) return invalidRequest(refused);
  const message = new Request(req.url, { method: "POST", headers: req.headers, body: text });

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  // A cancellation can name only a request of this same POST, whose answer the JSON response waits
  // for; the SDK's own handler would leave that request unanswered and the response pending.
  server.setNotificationHandler(CancelledNotificationSchema, () => {});
  // The calls of a batch run one after another: one request holds one database connection.
  let queue: Promise<unknown> = Promise.resolve();
  // Registered by its method alone: the SDK then checks the params itself and answers a bad one
  // with -32602 (Invalid params); under the full schema a bad one was an internal error.
  server.setRequestHandler(CALL_TOOL_METHOD, (request) => {
    const { params } = CallToolRequestSchema.parse(request);
    const call = queue.then(() => callTool(params.name, params.arguments, origin));
    queue = call.catch(() => {});
    return call;
  });
  // Without a session id generator the transport is stateless.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(message);
  } finally {
    await server.close();
  }
}

/**
 * Why a batch is refused before any of it runs, or null (the transport judges the rest). The SDK
 * answers a batch once each request id has its answer: a repeated id left work running whose
 * answer was dropped, and an empty batch got no answer. `tools/list` needs no credential and its
 * answer is large: once a request.
 */
function batchRefusal(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  if (parsed.length === 0) return "the batch is empty";
  const ids = new Set<string>();
  let lists = 0;
  for (const message of parsed) {
    if (typeof message !== "object" || message === null || !("method" in message)) continue;
    if (!("id" in message)) continue; // a notification
    const id = JSON.stringify(message.id);
    if (ids.has(id)) return `two requests of the batch have the id ${id.slice(0, 100)}`;
    ids.add(id);
    if (message.method === "tools/list" && ++lists > 1) return "a batch lists the tools once";
  }
  return null;
}

function invalidRequest(reason: string): Response {
  const error = { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${reason}` };
  return jsonResponse({ jsonrpc: "2.0", error, id: null }, 400, {});
}

function refusal(f: Fail): Response {
  return jsonResponse(failBody(f), f.httpStatus, { ...f.headers });
}

function unexpected(e: unknown, requestId: string): Response {
  const reason = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  log.error("unhandled", { fn: "mcp", request_id: requestId, reason: reason.slice(0, 500) });
  return jsonResponse(
    errorBody(`Internal server error; quote request id ${requestId} when reporting it`),
    500,
    {},
  );
}
