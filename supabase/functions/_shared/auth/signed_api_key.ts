import { createHmac } from "node:crypto";
import { env } from "../env.ts";
import { constantTimeEqual } from "./classify_bearer.ts";
import { hexOf } from "../hex.ts";

/**
 * API keys that carry their own proof: UUID-shaped as the interface requires (version 8, the
 * custom layout of RFC 9562), 60 random bits followed by 62 bits of an HMAC-SHA-256 of them under
 * API_KEY_SECRET. A key the server issued is recognised without the database, so it is never
 * charged to a flooded address; a made-up key of this shape is refused without the database, and
 * counted against its address like any unknown key. Keys without the version-8 shape (issued before
 * the secret was set) are looked up as before.
 *
 * Synchronous on purpose, as `sha256Hex`: WebCrypto's async sign costs a thread hop on every API
 * key request, and a key issued inside a transaction would split its statement from the opener.
 */
const VERSION = 8;

const secret = env.API_KEY_SECRET;

/** A new API key: self-checking when API_KEY_SECRET is set, else a random UUID. */
export function issueApiKey(): string {
  if (!secret) return crypto.randomUUID();
  return signedKey(secret, crypto.getRandomValues(new Uint8Array(8)));
}

/** What a key's shape says: issued by this server, made up, or of the older random kind. */
export function keyProof(key: string): "issued" | "forged" | "unsigned" {
  if (!secret) return "unsigned";
  const bytes = uuidBytes(key);
  if (!bytes || bytes[6]! >> 4 !== VERSION || (bytes[8]! & 0xc0) !== 0x80) return "unsigned";
  return constantTimeEqual(signedKey(secret, bytes.subarray(0, 8)), key) ? "issued" : "forged";
}

/** The key for a random part: its version set, then the MAC of it with the RFC 9562 variant. */
function signedKey(secret: string, random: Uint8Array): string {
  const bytes = new Uint8Array(16);
  bytes.set(random.subarray(0, 8));
  bytes[6] = (bytes[6]! & 0x0f) | (VERSION << 4);
  const signature = createHmac("sha256", secret).update(bytes.subarray(0, 8)).digest();
  bytes.set(signature.subarray(0, 8), 8);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return uuidText(bytes);
}

function uuidText(bytes: Uint8Array): string {
  const hex = hexOf(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

function uuidBytes(key: string): Uint8Array | null {
  // Issued keys are lower-case; another spelling of one is another key (and bucket), not this one.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key)) return null;
  const hex = key.replaceAll("-", "");
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}
