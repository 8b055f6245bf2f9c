import { AppError, type FieldError } from '@msp/errors';

/** Password fields may hold any character (R13: never changed); they are hashed, not stored. */
const FREE_TEXT_KEYS = new Set(['password', 'newPassword', 'currentPassword']);

/** Paths of strings holding U+0000, which PostgreSQL text cannot store. */
function nulPaths(value: unknown, path: string[], out: FieldError[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000') && !FREE_TEXT_KEYS.has(path.at(-1) ?? '')) out.push({ field: path.join('.') || 'body', message: 'Must not contain NUL characters.' });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nulPaths(v, [...path, String(i)], out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) nulPaths(v, [...path, k], out);
  }
}

/**
 * The JSON body parser of identity: an empty body is "no body" (clients send that to AUTH-2/3/4),
 * and text fields with NUL characters are refused with their paths before anything reaches a query.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  const value = JSON.parse(text) as unknown;
  const problems: FieldError[] = [];
  nulPaths(value, [], problems);
  if (problems.length > 0) throw AppError.validation(problems);
  return value;
}
