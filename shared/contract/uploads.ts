// The endpoints of the uploads area: images stored for portraits and backgrounds.
import { MAX_UPLOAD_BODY_BYTES, UploadedFile, UploadPublicFileBody } from "../uploads.ts";
import type { EndpointContract } from "./entry.ts";

export const uploadsEndpoints = {
  "upload-public-file": {
    summary: "Stores a portrait or background image (supporter tier 1+) and returns its public URL",
    area: "uploads",
    effect: "additive",
    auth: ["jwt", "api_key"],
    rules: [
      "`data` decodes to at most 2 MiB (2,097,152 bytes), and starts with the signature of the " +
      "format `type` names (the pattern of each variant says it).",
    ],
    // An oversize file is refused with 413 while the body is read, before anything is decoded.
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    body: UploadPublicFileBody,
    result: UploadedFile,
  },
} as const satisfies Record<string, EndpointContract>;
