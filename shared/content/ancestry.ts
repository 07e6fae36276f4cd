import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Operations,
  optionFields,
  recordFields,
} from "./fields.ts";

/** An ancestry. */
export const { Resource: Ancestry, Save: SaveAncestryBody, Result: FindAncestryResult } =
  contentSchemas("Ancestry", {
    ...describedFields,
    ...optionFields,
    ...recordFields,
    operations: Operations.nullable(),
  });
export type Ancestry = z.infer<typeof Ancestry>;

/** Body of find-ancestry. */
export const FindAncestryBody = z.strictObject(findBase);
