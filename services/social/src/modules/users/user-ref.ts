import { z } from 'zod';

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
