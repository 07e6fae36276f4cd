import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Operations,
  recordFields,
  ShortText,
} from "./fields.ts";

/** A background. */
export const { Resource: Background, Save: SaveBackgroundBody, Result: FindBackgroundResult } =
  contentSchemas("Background", {
    ...describedFields,
    operations: Operations.nullable(),
    artwork_url: ShortText.nullable(),
    ...recordFields,
  });
export type Background = z.infer<typeof Background>;

/** Body of find-background. */
export const FindBackgroundBody = z.strictObject(findBase);
