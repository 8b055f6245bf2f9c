import { z } from 'zod';

import { DateTimeSchema } from './primitives.js';

/**
 * Error response of API.md §2. `code` stays a string here: the list of codes and
 * their statuses lives in @msp/errors.
 */
export const FieldErrorSchema = z.object({
  /** Dotted path (`deviceInfo.deviceType`, `page`). */
  field: z.string(),
  message: z.string(),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

export const ErrorResponseSchema = z.object({
  timestamp: DateTimeSchema,
  status: z.number().int(),
  error: z.string(),
  code: z.string(),
  message: z.string(),
  path: z.string(),
  requestId: z.string(),
  /** Absent unless code is VALIDATION_FAILED or WEAK_PASSWORD. */
  errors: z.array(FieldErrorSchema).optional(),
});
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

export const MessageResponseSchema = z.object({
  message: z.string().min(1),
});
export type MessageResponse = z.infer<typeof MessageResponseSchema>;
