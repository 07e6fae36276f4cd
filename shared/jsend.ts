import { z } from "zod";

/** A JSend `fail`: the caller's request was refused; `message` says why. */
export const JSendFail = z.object({
  status: z.literal("fail"),
  data: z.looseObject({ message: z.string() }),
}).meta({ id: "JSendFail" });
export type JSendFail = z.infer<typeof JSendFail>;

/** A JSend `error`: the server could not complete the request. */
export const JSendError = z.object({
  status: z.literal("error"),
  message: z.string(),
}).meta({ id: "JSendError" });
export type JSendError = z.infer<typeof JSendError>;

/** A JSend `success` wrapping the given data schema. */
export function jsendSuccess<T extends z.ZodType>(data: T) {
  return z.object({ status: z.literal("success"), data });
}

/** Every response body: success, fail or error, told apart by `status`. */
export type JSend<T> =
  | { status: "success"; data: T }
  | JSendFail
  | JSendError;
