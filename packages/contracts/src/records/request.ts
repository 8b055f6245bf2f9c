import { z } from 'zod';

import { coercedNumber, IdSchema } from './primitives.js';

/** Max page size (docs/api.md "Conventions", paging). */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE = 10_000_000;

/** `page,size` of the Params column; services `.extend()` it with their own filters. */
export const PageQuerySchema = z.object({
  // Bounded so that page × size stays a valid OFFSET; no list has ten million pages.
  page: coercedNumber(z.number().int().min(0).max(MAX_PAGE)).default(0),
  size: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).default(DEFAULT_PAGE_SIZE),
});
export type PageQuery = z.output<typeof PageQuerySchema>;

/** A positive integer id given as text: "007" is 7; "", "0", "1.5" and "12abc" fail. */
export const IdTextSchema = coercedNumber(IdSchema);

/** Path params schema for one id, e.g. `IdParamSchema('trackId')` → `{ trackId: number }`. */
export function IdParamSchema<const K extends string>(name: K) {
  return z.object({ [name]: IdTextSchema } as { [P in K]: typeof IdTextSchema });
}

/**
 * R1: usernames always contain a letter, so a path segment of digits is a user id and anything
 * else is a username. Both forms are accepted by every /users/{userId|username}/... route.
 */
export const UserRefSchema = z
  .string()
  .min(1)
  .max(100)
  // PostgreSQL text cannot hold NUL; no username contains one.
  .refine((value) => !value.includes('\u0000'), 'Must not contain NUL characters.')
  .transform((value, ctx) => {
    if (/^\d+$/.test(value)) {
      const id = Number(value);
      if (!Number.isSafeInteger(id) || id <= 0) {
        ctx.addIssue({ code: 'custom', message: 'Must be a positive integer id or a username.' });
        return z.NEVER;
      }
      return { id } as const;
    }
    return { username: value.toLowerCase() } as const;
  });
export type UserRef = z.infer<typeof UserRefSchema>;
