const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/**
 * Bytes backed by a plain ArrayBuffer, as `fetch` bodies need: `Uint8Array<ArrayBuffer>` in
 * TypeScript 5.7+, but the platform's Deno 2.1 has TypeScript 5.6, whose Uint8Array is not generic.
 */
export type Bytes = ReturnType<Uint8Array["slice"]>;

/**
 * Decodes standard base64 with padding, strictly: no whitespace, no URL-safe letters, no bits set
 * after the last byte. Returns null for anything else. Written here because the platform's runtime
 * (Deno 2.1) has no `Uint8Array.fromBase64`, and `atob` accepts whitespace and missing padding.
 */
export function decodeStrictBase64(text: string): Bytes | null {
  if (text.length % 4 !== 0) return null;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let out = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const quad = [0, 1, 2, 3].map((k) => sextet(text, i + k, last ? 4 - padding : 4));
    if (quad.some((v) => v < 0)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = quad;
    const word = (a << 18) | (b << 12) | (c << 6) | d;
    if (last && padding === 2 && (word & 0xffff) !== 0) return null;
    if (last && padding === 1 && (word & 0xff) !== 0) return null;
    bytes[out++] = word >> 16;
    if (out < bytes.length) bytes[out++] = (word >> 8) & 0xff;
    if (out < bytes.length) bytes[out++] = word & 0xff;
  }
  return bytes;
}

/** The value of the character at `index`, 0 for padding in the last `4 - significant` places. */
function sextet(text: string, index: number, significant: number): number {
  const code = text.charCodeAt(index);
  if (index % 4 >= significant) return code === 61 /* = */ ? 0 : -1;
  return code < 128 ? VALUES[code] ?? -1 : -1;
}
