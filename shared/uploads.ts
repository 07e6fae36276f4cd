import { z } from "zod";

/** Where an uploaded image is used; each category is its own storage bucket. */
export const UploadCategory = z.enum(["portraits", "backgrounds"]).meta({ id: "UploadCategory" });
export type UploadCategory = z.infer<typeof UploadCategory>;

/** The image formats accepted; `jpg` and `jpeg` are the same format. */
export const UploadType = z.enum(["png", "jpeg", "jpg", "webp"]).meta({ id: "UploadType" });
export type UploadType = z.infer<typeof UploadType>;

/** Largest decoded file accepted: 2 MiB. */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;

/** Length of the base64 text of a file of MAX_UPLOAD_BYTES. */
export const MAX_UPLOAD_BASE64_CHARS = 4 * Math.ceil(MAX_UPLOAD_BYTES / 3);

/** The request body cap of upload-public-file: the largest base64 text plus room for the rest. */
export const MAX_UPLOAD_BODY_BYTES = MAX_UPLOAD_BASE64_CHARS + 1024;

// A plain character-class scan: linear and fast on megabytes. Padding bits are checked on decode.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Body of upload-public-file: the image as standard base64 (no data: prefix). */
export const UploadPublicFileBody = z.object({
  data: z.string()
    .min(1, "expected a base64-encoded image")
    .max(MAX_UPLOAD_BASE64_CHARS, "the file is larger than 2 MiB")
    .regex(BASE64, "expected standard base64 with padding")
    .refine((text) => text.length % 4 === 0, "expected standard base64 with padding"),
  category: UploadCategory,
  type: UploadType,
});
export type UploadPublicFileBody = z.infer<typeof UploadPublicFileBody>;

/** Where an uploaded file can be fetched by anyone. */
export const UploadedFile = z.object({ url: z.url() }).meta({ id: "UploadedFile" });
export type UploadedFile = z.infer<typeof UploadedFile>;

// The base64 grammar the decoder accepts (`decodeStrictBase64`): whole quads, then at most one
// padded quad whose unused bits are zero.
const QUAD = "[A-Za-z0-9+/]{4}";
const PADDED = "(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)";
const REST = `(?:${QUAD})*${PADDED}?`;

/**
 * Per image format, the base64 text of a file that the server recognises as that format
 * (`sniffImageFormat`: PNG's 8-byte signature, JPEG's 3 bytes, RIFF....WEBP): the signature's bytes
 * as they fall in the first quads, then valid base64. For the OpenAPI document; a test checks them
 * against the server's sniffing.
 */
export const UPLOAD_DATA_PATTERNS = {
  png: `^iVBORw0K(?:Ggo=|Gg[o-r][A-Za-z0-9+/]${REST})$`,
  jpeg: `^/9j/${REST}$`,
  webp: `^UklGR[g-v][A-Za-z0-9+/]{4}[BFJNRVZdhlptx159]XRUJQ${REST}$`,
} as const;
