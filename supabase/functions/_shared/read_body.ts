import { Fail } from "./envelope.ts";

/** Reads a request body as text, refusing with 413 once more than `maxBytes` would be read. */
export async function readBodyCapped(req: Request, maxBytes: number): Promise<string> {
  const declared = req.headers.get("content-length");
  // Content-Length is only trustworthy without a transfer encoding; otherwise count streamed bytes.
  if (declared !== null && !req.headers.has("transfer-encoding")) {
    const length = Number(declared);
    if (Number.isFinite(length) && length > maxBytes) throw tooLarge(maxBytes);
  }
  if (req.body === null) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read().catch(() => {
        // The client went away mid-upload: its fault, not the server's.
        throw new Fail("Invalid request body: the body could not be read to its end", 400);
      });
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Fail("Invalid JSON body: the body is not valid UTF-8", 400);
  }
}

function tooLarge(maxBytes: number): Fail {
  return new Fail(`Request body too large: the limit is ${maxBytes} bytes`, 413);
}

/** Parses a JSON body; an empty body is `{}`, as a call without parameters. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Fail("Invalid JSON body", 400);
  }
}
