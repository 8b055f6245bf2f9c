import type { ErrorCode } from './codes.js';
import type { FieldError } from './app-error.js';
import { reasonPhrase } from './reason.js';

/** The ErrorResponse record (docs/api.md). */
export interface ErrorResponse {
  timestamp: string;
  status: number;
  error: string;
  code: ErrorCode;
  message: string;
  path: string;
  requestId: string;
  errors?: FieldError[];
}

export function buildErrorResponse(input: {
  status: number;
  code: ErrorCode;
  message: string;
  path: string;
  requestId: string;
  errors?: FieldError[];
}): ErrorResponse {
  const body: ErrorResponse = {
    timestamp: new Date().toISOString(),
    status: input.status,
    error: reasonPhrase(input.status),
    code: input.code,
    message: input.message,
    path: input.path.split('?')[0] ?? input.path,
    requestId: input.requestId,
  };
  if (input.code === 'VALIDATION_FAILED' || input.code === 'WEAK_PASSWORD') {
    // ErrorResponse.errors: present for these two codes, always as an array of {field, message}.
    body.errors = input.errors && input.errors.length > 0 ? input.errors : [{ field: 'request', message: input.message }];
  }
  return body;
}
