export { ERROR_STATUS, ERROR_CODES, codeForStatus, defaultMessage, type ErrorCode } from './codes.js';
export { ERROR_MEANINGS } from './meanings.js';
export { AppError, isAppError, type FieldError, type AppErrorOptions } from './app-error.js';
export { buildErrorResponse, type ErrorResponse } from './error-response.js';
export { clientErrorHandler, databaseError, errorHandler, frameworkErrorHandler, notFoundHandler, renderError, sendError } from './handler.js';
export { reasonPhrase } from './reason.js';
export { classifyDatabaseError, isRecordNotFound, isUniqueViolation, sqlStateOf, type DatabaseErrorInfo, type DatabaseErrorKind } from './database.js';
