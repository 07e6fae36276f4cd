import { deepEqual, equal } from "node:assert/strict";
import { decodeStrictBase64 } from "./base64.ts";

Deno.test("decodeStrictBase64 reads what btoa writes, for every length and byte", () => {
  for (let length = 0; length < 70; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + length * 31) % 256);
    const text = btoa(String.fromCharCode(...bytes));
    deepEqual(decodeStrictBase64(text), bytes, text);
  }
});

Deno.test("decodeStrictBase64 refuses what is not strict standard base64", () => {
  for (
    const text of [
      "QQ", // no padding
      "QQ=", // short padding
      "QQ===",
      "QR==", // bits after the last byte
      "QUI=x===",
      "QUJ=", // bits after the last byte
      "QU=I",
      "Q Q==", // whitespace
      "-_8=", // URL-safe letters
      "QUJD\n",
      "QUJDé===",
    ]
  ) {
    equal(decodeStrictBase64(text), null, JSON.stringify(text));
  }
});
