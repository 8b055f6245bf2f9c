import { z } from 'zod';

import { DateTimeSchema } from './primitives.js';

/** One invalid field of an error response. */
export const FieldErrorSchema = z.object({
  /** Dotted path (`deviceInfo.deviceType`, `page`). */
  field: z.string(),
  message: z.string(),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

/**
 * Every non-2xx answer. `code` stays a string here: the list of codes and their statuses lives
 * in @msp/errors.
 */
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
