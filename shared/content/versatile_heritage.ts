import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { contentSchemas, describedFields, findBase, optionFields, recordFields } from "./fields.ts";

/** A versatile heritage: a heritage open to any ancestry; `heritage_id` is its ability block. */
export const {
  Resource: VersatileHeritage,
  Save: SaveVersatileHeritageBody,
  Result: FindVersatileHeritageResult,
} = contentSchemas("VersatileHeritage", {
  ...describedFields,
  ...optionFields,
  heritage_id: OptionalRef,
  ...recordFields,
});
export type VersatileHeritage = z.infer<typeof VersatileHeritage>;

/** Body of find-versatile-heritage. */
export const FindVersatileHeritageBody = z.strictObject({
  ...findBase,
  heritage_id: Id.optional(),
});
