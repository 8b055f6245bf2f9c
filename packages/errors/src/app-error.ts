import { ERROR_STATUS, defaultMessage, type ErrorCode } from './codes.js';

export interface FieldError {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type for expected conditions; the error handler renders it as ErrorResponse. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? defaultMessage(code), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers;
  }

  static validation(errors: FieldError[], message = 'The request has invalid fields.'): AppError {
    return new AppError('VALIDATION_FAILED', message, { errors });
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
