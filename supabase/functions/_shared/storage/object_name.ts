import { UploadCategory } from "@shared/uploads.ts";
import type { ImageFormat } from "./image_format.ts";

/** A stored public file's place: its bucket and its path inside the bucket. */
export interface ObjectName {
  bucket: UploadCategory;
  /** `<owner uuid>/<sha-256 of the bytes>.<extension>` */
  path: string;
  contentType: string;
}

const EXTENSION: Readonly<Record<ImageFormat, string>> = { png: "png", jpeg: "jpg", webp: "webp" };

const CONTENT_TYPE: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
};

// The only path shape ever written or served: a UUID, a hex digest and a known extension. Nothing
// taken from a request can add a separator, a dot segment or an encoded character.
const PATH =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([0-9a-f]{64})\.(png|jpg|webp)$/;

/** Names a file by its owner and content hash, so the same image uploaded twice is stored once. */
export function objectName(
  ownerId: string,
  category: UploadCategory,
  sha256: string,
  format: ImageFormat,
): ObjectName {
  const parsed = parseObjectName(
    category,
    `${ownerId.toLowerCase()}/${sha256}.${EXTENSION[format]}`,
  );
  if (!parsed) throw new Error("Object name is not valid: owner or hash has the wrong shape");
  return parsed;
}

/** Reads a bucket and path back into an object name, or null when they are not one we write. */
export function parseObjectName(bucket: string, path: string): ObjectName | null {
  const category = UploadCategory.safeParse(bucket);
  const match = PATH.exec(path);
  const contentType = match?.[3] ? CONTENT_TYPE[match[3]] : undefined;
  if (!category.success || !contentType) return null;
  return { bucket: category.data, path, contentType };
}
