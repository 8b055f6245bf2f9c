import { randomUUID } from 'node:crypto';
import { reasonPhrase } from './reason.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from './app-error.js';
import { codeForStatus, defaultMessage, type ErrorCode } from './codes.js';
import { buildErrorResponse } from './error-response.js';
import { classifyDatabaseError } from './database.js';

interface Rendered {
  status: number;
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldPath(issue: ValidationIssue, context: string | undefined): string {
  const fromPointer = (issue.instancePath ?? '').split('/').filter(Boolean).join('.');
  const missing = issue.params?.missingProperty;
  if (typeof missing === 'string') return fromPointer ? `${fromPointer}.${missing}` : missing;
  return fromPointer || context || 'body';
}

/** The zod issue message says what is wrong but never echoes the (possibly huge or hostile) value. */
function issuesToFields(issues: ValidationIssue[], context: string | undefined): FieldError[] {
  return issues.map((issue) => ({ field: fieldPath(issue, context), message: issue.message ?? 'Invalid value' }));
}

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_REQUEST',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_PROTO_VIOLATION: 'MALFORMED_REQUEST',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_VALIDATION: 'VALIDATION_FAILED',
};

/** Retry-After of a 503 for an overloaded database (pool exhausted, statement timeout). */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

/**
 * Database errors rendered once for every service (never a 500): not found (P2025 from a
 * conditional update or delete, a missing referenced row) → 404, unique → 400, invalid input →
 * 400, an overloaded database (no pool connection in time, a statement over its timeout, a lost
 * connection) → 503 with Retry-After (classification in database.ts). Anything else stays a 500
 * and is logged.
 */
export function databaseError(error: unknown): Rendered | null {
  const invalid = (message: string): Rendered => ({ status: 400, code: 'VALIDATION_FAILED', message, errors: [{ field: 'request', message }] });
  switch (classifyDatabaseError(error)?.kind) {
    case 'not-found':
      return { status: 404, code: 'RESOURCE_NOT_FOUND', message: 'The resource does not exist.' };
    case 'unique':
      return invalid('The request conflicts with data that already exists.');
    case 'foreign-key':
      return { status: 404, code: 'RESOURCE_NOT_FOUND', message: 'A resource the request refers to does not exist.' };
    case 'invalid-input':
      return invalid('A value of the request is out of range or cannot be stored.');
    case 'too-complex':
      return invalid('The request is too complex.');
    case 'overloaded':
      return {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service is busy; try again shortly.',
        headers: { 'retry-after': String(OVERLOADED_RETRY_AFTER_SECONDS) },
      };
    default:
      return null;
  }
}

/** Turns anything thrown into the status, code and text of an ErrorResponse. */
export function renderError(error: unknown): Rendered {
  if (error instanceof AppError) {
    return { status: error.status, code: error.code, message: error.message, errors: error.errors, headers: error.headers };
  }
  const err = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string; issues?: ValidationIssue[] };
  if (Array.isArray(err?.validation)) {
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'The request has invalid fields.',
      errors: issuesToFields(err.validation, err.validationContext),
    };
  }
  if (err?.name === 'ZodError' && Array.isArray(err.issues)) {
    const issues = err.issues as Array<{ path: PropertyKey[]; message: string }>;
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'The request has invalid fields.',
      errors: issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })),
    };
  }
  const frameworkCode = err?.code ? FRAMEWORK_CODES[err.code] : undefined;
  if (frameworkCode) {
    const status = frameworkCode === 'VALIDATION_FAILED' || frameworkCode === 'MALFORMED_REQUEST' ? 400 : frameworkCode === 'PAYLOAD_TOO_LARGE' ? 413 : 415;
    return { status, code: frameworkCode, message: defaultMessage(frameworkCode) };
  }
  const database = databaseError(error);
  if (database) return database;
  if (err instanceof SyntaxError || err?.name === 'SyntaxError') {
    return { status: 400, code: 'MALFORMED_REQUEST', message: defaultMessage('MALFORMED_REQUEST') };
  }
  const status = typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  const code = codeForStatus(status);
  // Never show an unexpected error's own text: it may carry internals.
  return { status, code, message: status >= 500 ? defaultMessage(code) : err?.message || defaultMessage(code) };
}

const FRAMEWORK_URL_ERRORS: Record<string, string> = {
  FST_ERR_BAD_URL: 'The URL has an invalid percent-encoding.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path segment is too long.',
  FST_ERR_ASYNC_CONSTRAINT: 'The request could not be routed.',
};

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (a bad escape in the path, an
 * overlong segment) in the ErrorResponse shape instead of Fastify's own body.
 */
export function frameworkErrorHandler(error: { code?: string; message?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const message = (error.code && FRAMEWORK_URL_ERRORS[error.code]) || 'The request could not be read.';
  // The reply is sent synchronously; Fastify expects this handler to return nothing.
  void sendError(request, reply, 400, 'VALIDATION_FAILED', message, [{ field: 'path', message }]);
}

/** The error handler every Fastify app of the fleet installs. */
export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const rendered = renderError(error);
  if (rendered.status === 503) {
    request.log.warn({ err: error }, 'request refused: service busy');
  } else if (rendered.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    request.log.info({ code: rendered.code, status: rendered.status }, 'request rejected');
  }
  if (rendered.headers) reply.headers(rendered.headers);
  return sendError(request, reply, rendered.status, rendered.code, rendered.message, rendered.errors);
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: ErrorCode,
  message?: string,
  errors?: FieldError[],
): FastifyReply {
  const body = buildErrorResponse({
    status,
    code,
    message: message ?? defaultMessage(code),
    path: request.url,
    requestId: String(request.id),
    errors,
  });
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, 404, 'ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`);
}

/**
 * Fastify's `clientErrorHandler`: Node-level rejections before a request exists (malformed
 * request line or headers, headers over the size limit, Content-Length with Transfer-Encoding,
 * a request not completed within the server's requestTimeout) answered in the ErrorResponse shape,
 * then the socket is closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'MALFORMED_REQUEST', 'The request was not completed in time.']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'PAYLOAD_TOO_LARGE', 'The request headers are too large.']
        : [400, 'MALFORMED_REQUEST', 'The request could not be read.'];
  if (socket.writable) {
    const body = JSON.stringify(buildErrorResponse({ status, code, message, path: '', requestId: randomUUID() }));
    socket.write(
      `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
