import { z } from "zod";

/** A database row id: a positive integer. */
export const Id = z.int().positive().max(2 ** 53 - 1);

/** The `id` filter of find endpoints: one id gives one object or null, a list gives a list. */
export const IdFilter = z.union([Id, z.array(Id).max(1000)]);

/** A user's UUID. */
export const UserId = z.uuid();

/** An ISO 8601 date-time as the database returns it. */
export const Timestamp = z.string();

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());

/** A trimmed, non-empty name of at most `max` characters. */
export function requiredText(max: number) {
  return z.string().trim().min(1).max(max);
}
