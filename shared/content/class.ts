import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Int,
  Operations,
  optionFields,
  recordFields,
} from "./fields.ts";

/** A class. */
export const { Resource: Class, Save: SaveClassBody, Result: FindClassResult } = contentSchemas(
  "Class",
  {
    ...describedFields,
    operations: Operations.nullable(),
    skill_training_base: Int.nullable(),
    ...optionFields,
    ...recordFields,
  },
);
export type Class = z.infer<typeof Class>;

/** Body of find-class. */
export const FindClassBody = z.strictObject(findBase);
