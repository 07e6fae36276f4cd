import { equal } from "node:assert/strict";
import { sniffImageFormat } from "./image_format.ts";

Deno.test("sniffImageFormat() trusts magic numbers only", () => {
  const bytes = (...b: number[]) => new Uint8Array([...b, 0, 0, 0, 0]);
  equal(sniffImageFormat(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)), "png");
  equal(sniffImageFormat(bytes(0xff, 0xd8, 0xff, 0xdb)), "jpeg");
  equal(
    sniffImageFormat(bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50)),
    "webp",
  );
  // A RIFF file that is not WebP (a WAV file), a script, text and nothing at all.
  equal(sniffImageFormat(bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x41, 0x56, 0x45)), null);
  equal(sniffImageFormat(new TextEncoder().encode("#!/bin/sh\nrm -rf /")), null);
  equal(sniffImageFormat(new TextEncoder().encode("<svg onload=alert(1)>")), null);
  equal(sniffImageFormat(new Uint8Array()), null);
});
