/**
 * A `tools/call` runs its endpoint's own pipeline in this process, as a request from the same
 * caller: the MCP request's headers (its bearer, and the forwarding headers the client address is
 * read from) and its connection info, the arguments as the JSON body, `idempotency_key` as the
 * Idempotency-Key header. Credential, rate budget (one unit a call), validation, row-level security,
 * grants and tier caps are the endpoint's, unchanged.
 */
import { type CallToolResult, ErrorCode, McpError } from "./sdk.ts";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "@shared/idempotency.ts";
import { readBytesCapped } from "../_shared/read_body.ts";
import { toolHandlers } from "./handlers.ts";
import { IDEMPOTENCY_ARGUMENT, isToolName } from "./tools.ts";

/** The largest result a tool returns: a model's context holds far less; filters narrow a find. */
export const MAX_RESULT_BYTES = 2 * 1024 * 1024;
/**
 * The results one POST may gather: a batch's answer is held whole until its last call ends (each
 * result twice, as text and as structured content), and a hundred large ones filled the heap.
 * Calls that start past it are refused without running.
 */
export const MAX_BATCH_RESULT_BYTES = 2 * MAX_RESULT_BYTES;

/** Headers of the MCP request that describe the MCP exchange, not the caller: never passed on. */
const EXCHANGE_HEADERS = [
  "accept",
  "content-length",
  "content-type",
  "transfer-encoding",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  IDEMPOTENCY_HEADER,
];

/** The MCP request a call came in: whose it is, from where, and the result bytes it has gathered. */
export interface CallOrigin {
  req: Request;
  info: Deno.ServeHandlerInfo | undefined;
  resultBytes: number;
}

/** Runs one tool call through its endpoint and returns the endpoint's answer as a tool result. */
export async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  origin: CallOrigin,
): Promise<CallToolResult> {
  if (!isToolName(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  if (origin.resultBytes >= MAX_BATCH_RESULT_BYTES) {
    return errorResult(
      `This request's results have reached ${MAX_BATCH_RESULT_BYTES} bytes: send the remaining ` +
        "calls in another request",
    );
  }
  const { [IDEMPOTENCY_ARGUMENT]: key, ...body } = args ?? {};
  const headers = new Headers(origin.req.headers);
  for (const header of EXCHANGE_HEADERS) headers.delete(header);
  headers.set("content-type", "application/json");
  if (key !== undefined) {
    if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      return errorResult(
        `Invalid value for ${IDEMPOTENCY_ARGUMENT}: expected 1 to 255 printable ASCII characters, no space at either end`,
      );
    }
    headers.set(IDEMPOTENCY_HEADER, key);
  }
  const request = new Request(new URL(name, origin.req.url), {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const response = await toolHandlers[name](request, origin.info);
  const bytes = await readBytesCapped(response.body, MAX_RESULT_BYTES);
  origin.resultBytes += bytes?.byteLength ?? 0;
  if (bytes === null) {
    return errorResult(
      `The result is larger than ${MAX_RESULT_BYTES} bytes: ask for fewer records (ids, filters)`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return errorResult("The endpoint's answer was cut short: try again");
  }
  if (!isEnvelope(envelope)) return errorResult("The endpoint answered without a JSend envelope");
  return {
    content: [{ type: "text", text }],
    structuredContent: envelope,
    ...(envelope.status === "success" ? {} : { isError: true }),
  };
}

type Envelope = { status: "success" | "fail" | "error" } & Record<string, unknown>;

function isEnvelope(value: unknown): value is Envelope {
  const status = (value as { status?: unknown } | null)?.status;
  return status === "success" || status === "fail" || status === "error";
}

/** A refusal made here rather than by the endpoint, in the JSend form the endpoints use. */
function errorResult(message: string): CallToolResult {
  const envelope = { status: "fail", data: { message } };
  return {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope,
    isError: true,
  };
}
