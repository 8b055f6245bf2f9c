import { z } from 'zod';

/** Building blocks shared by the records and by request schemas. */

/**
 * Ids are PostgreSQL `integer` (int4) columns: a path or body id past 2^31 − 1 cannot exist and is
 * refused with 400 VALIDATION_FAILED before it reaches the database (docs/decisions.md, "Input discipline").
 */
export const MAX_ID = 2_147_483_647;
export const IdSchema = z.number().int().positive().max(MAX_ID);
export const CountSchema = z.number().int().nonnegative();

/**
 * ISO-8601 UTC date-time (`2025-03-01T12:00:00.000Z`). Left as a plain string so
 * response schemas never reject a value the producing service formatted itself.
 */
export const DateTimeSchema = z.string();

/** Calendar date `YYYY-MM-DD`. */
export const DateSchema = z.string();

/**
 * Only plain decimal text is turned into a number. `Number()` alone would accept
 * "", " 5", "0x1A" and "1e3"; left as strings they fail the number check instead.
 * Fractions are converted so that "1.5" fails as "not an integer", not as "not a number".
 */
const DECIMAL_TEXT = /^[+-]?\d+(?:\.\d+)?$/;

function decimalTextToNumber(value: unknown): unknown {
  return typeof value === 'string' && DECIMAL_TEXT.test(value) ? Number(value) : value;
}

/** Accepts a number or its decimal text (query strings, path segments) and validates it with `target`. */
export function coercedNumber<T extends z.ZodNumber>(target: T) {
  return z.preprocess(decimalTextToNumber, target);
}
