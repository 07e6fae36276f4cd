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
 */
const VERSION = 8;

const macKey: Promise<CryptoKey> | null = env.API_KEY_SECRET
  ? crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(env.API_KEY_SECRET),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  )
  : null;

/** A new API key: self-checking when API_KEY_SECRET is set, else a random UUID. */
export async function issueApiKey(): Promise<string> {
  if (!macKey) return crypto.randomUUID();
  return await signedKey(crypto.getRandomValues(new Uint8Array(8)));
}

/** What a key's shape says: issued by this server, made up, or of the older random kind. */
export async function keyProof(key: string): Promise<"issued" | "forged" | "unsigned"> {
  if (!macKey) return "unsigned";
  const bytes = uuidBytes(key);
  if (!bytes || bytes[6]! >> 4 !== VERSION || (bytes[8]! & 0xc0) !== 0x80) return "unsigned";
  return constantTimeEqual(await signedKey(bytes.subarray(0, 8)), key) ? "issued" : "forged";
}

/** The key for a random part: its version set, then the MAC of it with the RFC 9562 variant. */
async function signedKey(random: Uint8Array): Promise<string> {
  const bytes = new Uint8Array(16);
  bytes.set(random.subarray(0, 8));
  bytes[6] = (bytes[6]! & 0x0f) | (VERSION << 4);
  const signature = await crypto.subtle.sign("HMAC", await macKey!, bytes.slice(0, 8));
  bytes.set(new Uint8Array(signature).subarray(0, 8), 8);
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
