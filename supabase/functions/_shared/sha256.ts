import { createHash } from "node:crypto";

/**
 * Hex SHA-256 of text or bytes. Synchronous on purpose: WebCrypto's async digest costs a thread
 * hop per call, and API-key requests and rate-limit buckets hash on every request.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
