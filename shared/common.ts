import { z } from "zod";

// The web client sends ids taken from URLs as strings ("17"); an integer-valued string is read as
// that integer wherever an id is taken, so every endpoint gets the same rule from this one place.
function integerStringAsNumber(value: unknown): unknown {
  return typeof value === "string" && /^-?\d{1,16}$/.test(value) ? Number(value) : value;
}

/** A database row id: a positive integer (an integer-valued string such as "17" is accepted). */
export const Id = z.preprocess(
  integerStringAsNumber,
  z.int().positive().max(2 ** 53 - 1),
) as unknown as z.ZodType<number, number>; // typed by its canonical input

/** The `id` filter of find endpoints: one id gives one object or null, a list gives a list. */
export const IdFilter = z.union([Id, z.array(Id).max(1000)]);

/**
 * The `id` of a create-or-update body: a row id updates that row; absent, `null`, `-1` or `0` (the
 * web client's marker of a record not saved yet) inserts a new one and reads as absent.
 */
export const SaveId = z.preprocess(
  (value) => {
    const id = integerStringAsNumber(value);
    return id === -1 || id === 0 || id === null ? undefined : id;
  },
  z.int({
    error: (issue) =>
      issue.code === "invalid_type"
        ? `expected number or -1, received ${typeof issue.input}`
        : undefined,
  }).positive().max(2 ** 53 - 1).optional(),
).optional() as unknown as z.ZodOptional<z.ZodType<number, number | null>>;

/** A reference to another row that may be unset: `null`, or `-1` as the web client writes "none". */
export const OptionalRef = z.preprocess(
  (value) => (integerStringAsNumber(value) === -1 ? null : value),
  Id.nullable(),
) as unknown as z.ZodType<number | null, number | null>;

/**
 * An optional field of a save body: `null` reads as "not given" when the column cannot be null
 * (the web client sends `null` for a blank form field), and as null (clearing it) when it can.
 */
export function optionalInput<T extends z.ZodType>(schema: T): z.ZodOptional<T> {
  if (schema.safeParse(null).success) return schema.optional();
  const nullAsAbsent = z.preprocess(
    (value) => value === null ? undefined : value,
    schema.optional(),
  );
  return nullAsAbsent.optional() as unknown as z.ZodOptional<T>;
}

/** A user's UUID. */
export const UserId = z.uuid();

/** An ISO 8601 date-time as the database returns it. */
export const Timestamp = z.string();

/**
 * An instant a caller sends, with its offset: ISO 8601 as Postgres reads it, whose offsets reach
 * ±15:59 (a larger one is its error, not the caller's 500).
 */
export const InstantInput = z.iso.datetime({ offset: true }).refine(
  (text) => !/[+-](1[6-9]|[2-9]\d):?\d\d$/.test(text),
  "the time-zone offset must be between -15:59 and +15:59",
);

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());

/** A trimmed, non-empty name of at most `max` characters. */
export function requiredText(max: number) {
  return z.string().trim().min(1).max(max);
}
