/** Bytes as lowercase hexadecimal, two digits each (digests, UUID text, `bytea` literals). */
export function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
