/**
 * Every error code of the API contract (docs/api.md "Error codes") with its HTTP status.
 * This table is the only place a code is mapped to a status.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  MALFORMED_REQUEST: 400,
  WEAK_PASSWORD: 400,
  INVALID_TOKEN: 400,
  CAPTCHA_FAILED: 400,
  INVALID_TIMESTAMP: 400,
  REPLY_NOT_ALLOWED: 400,
  INVALID_PLAYLIST_ORDER: 400,
  UNSUPPORTED_AUDIO_FORMAT: 400,
  // A wrong second-factor code is bad input (400), not a failed bearer token: clients keep the session.
  INVALID_MFA_CODE: 400,
  INVALID_PASSKEY_REGISTRATION: 400,
  UNSUPPORTED_IMAGE_FORMAT: 400,
  SELF_ACTION_NOT_ALLOWED: 400,
  INVALID_SIGNATURE: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_REFRESH_TOKEN: 401,
  REFRESH_TOKEN_REUSED: 401,
  INVALID_IDP_TOKEN: 401,
  // Two-factor sign-in and passkeys (docs/account-security.md).
  INVALID_MFA_TOKEN: 401,
  PASSKEY_REJECTED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  /** An app's token (docs/developer-platform.md) lacks the scope the route needs, or the route is closed to apps. */
  INSUFFICIENT_SCOPE: 403,
  EMAIL_NOT_VERIFIED: 403,
  ACCOUNT_BANNED: 403,
  ACCOUNT_SUSPENDED: 403,
  /** The account is deleted at the end of its grace (ACC-3): every token is refused; ACC-4 restores it. */
  ACCOUNT_PENDING_DELETION: 403,
  INVALID_CURRENT_PASSWORD: 403,
  PRO_REQUIRED: 403,
  UPLOAD_QUOTA_EXCEEDED: 403,
  PROFILE_PRIVATE: 403,
  USER_BLOCKED: 403,
  TRACK_NOT_PLAYABLE: 403,
  ROUTE_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  TRACK_NOT_FOUND: 404,
  PLAYLIST_NOT_FOUND: 404,
  COMMENT_NOT_FOUND: 404,
  REPORT_NOT_FOUND: 404,
  CONVERSATION_NOT_FOUND: 404,
  TRACK_NOT_IN_PLAYLIST: 404,
  EMAIL_NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  PASSKEY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_TAKEN: 409,
  USERNAME_TAKEN: 409,
  ALREADY_VERIFIED: 409,
  EMAIL_UNVERIFIED: 409,
  TRACK_ALREADY_IN_PLAYLIST: 409,
  PLAYLIST_FULL: 409,
  DEVICE_TOKEN_EXISTS: 409,
  UPLOAD_ID_CONFLICT: 409,
  INVALID_TRACK_STATE: 409,
  ALREADY_PUBLISHED: 409,
  ALREADY_REPORTED: 409,
  SUBSCRIPTION_ALREADY_ACTIVE: 409,
  SUBSCRIPTION_STATE_CONFLICT: 409,
  MFA_ALREADY_ENABLED: 409,
  MFA_NOT_PENDING: 409,
  MFA_NOT_ENABLED: 409,
  /** ACC-1 while an export of the caller's data is still being built (docs/account-control.md). */
  EXPORT_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // The contract's original code list has no 416: a Range past the end of a media object or download
  // (RFC 9110 §15.5.17). Decision where the contract is silent; it was answered as 416 with the
  // 400 code VALIDATION_FAILED before.
  RANGE_NOT_SATISFIABLE: 416,
  TRACK_PROCESSING_FAILED: 422,
  RATE_LIMITED: 429,
  RESEND_COOLDOWN: 429,
  INTERNAL_ERROR: 500,
  PROVIDER_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Default human text per code, used when a thrower gives none. Safe to display. */
const DEFAULT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'The request has invalid fields.',
  MALFORMED_REQUEST: 'The request body could not be parsed.',
  UNAUTHORIZED: 'Authentication is required.',
  FORBIDDEN: 'You are not allowed to do this.',
  ROUTE_NOT_FOUND: 'No such route.',
  METHOD_NOT_ALLOWED: 'This route does not accept that method.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'This route does not accept that content type.',
  RANGE_NOT_SATISFIABLE: 'The requested range lies beyond the end of the file.',
  RATE_LIMITED: 'Too many requests; try again later.',
  INTERNAL_ERROR: 'An unexpected error occurred.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable.',
  UPSTREAM_TIMEOUT: 'The service did not answer in time.',
};

export function defaultMessage(code: ErrorCode): string {
  return DEFAULT_MESSAGES[code] ?? code.toLowerCase().replace(/_/g, ' ');
}

/** For errors that carry only a status (framework errors, proxies), the code that stands for it. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'VALIDATION_FAILED';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'ROUTE_NOT_FOUND';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 416:
      return 'RANGE_NOT_SATISFIABLE';
    case 429:
      return 'RATE_LIMITED';
    case 502:
      return 'SERVICE_UNAVAILABLE';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    case 504:
      return 'UPSTREAM_TIMEOUT';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_FAILED';
  }
}
