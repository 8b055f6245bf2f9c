import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '@msp/errors';

/**
 * One input discipline for every request that reaches a Fastify app of the fleet (services and
 * gateway), so that no route can forget it (docs/decisions.md, "Input discipline"):
 *
 * - query strings: invalid percent-encodings, NUL and lone UTF-16 surrogates → 400 naming the
 *   parameter (never a 500 from a decoder or the database);
 * - path parameters: the same characters → 400 (bad escapes are answered by `frameworkErrors`);
 * - JSON bodies: an empty body is no body; nesting deeper than MAX_JSON_DEPTH → 400 before JSON.parse; `__proto__` and
 *   `constructor.prototype` keys refused; every string (and key) containing NUL or a lone
 *   surrogate → 400 VALIDATION_FAILED with the field's dotted path. Refused, not cleaned: silently
 *   changing what a user wrote (a title, a password) is worse than telling them.
 * - multipart without a boundary → 400.
 */
export const MAX_JSON_DEPTH = 64;

const BAD_QUERY = Symbol('msp.badQuery');

/** NUL or a lone surrogate: text PostgreSQL cannot store and no client should send. */
export function isUnsafeText(value: string): boolean {
  // String.prototype.isWellFormed: Node 20+, not yet in the TypeScript lib this project targets.
  return value.includes('\u0000') || !(value as unknown as { isWellFormed(): boolean }).isWellFormed();
}

type Query = Record<string, string | string[]> & { [BAD_QUERY]?: string };

function decodePart(text: string): string | null {
  const plus = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!plus.includes('%')) return isUnsafeText(plus) ? null : plus;
  try {
    const decoded = decodeURIComponent(plus);
    return isUnsafeText(decoded) ? null : decoded;
  } catch {
    return null;
  }
}

/**
 * `querystringParser` for Fastify/find-my-way: like `node:querystring` but it never throws and
 * never passes an undecodable or unsafe value on; the first bad parameter is remembered and
 * answered with 400 by the `onRequest` hook of `registerInputDiscipline`.
 */
export function safeQuerystringParser(queryString: string): Query {
  const out = Object.create(null) as Query;
  if (!queryString) return out;
  for (const part of queryString.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodePart(eq === -1 ? part : part.slice(0, eq));
    const value = decodePart(eq === -1 ? '' : part.slice(eq + 1));
    if (key === null || value === null) {
      if (out[BAD_QUERY] === undefined) out[BAD_QUERY] = key ?? (eq === -1 ? part : part.slice(0, eq)).slice(0, 100);
      continue;
    }
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[key] = [existing, value];
  }
  return out;
}

/** The parameter that failed decoding, if any (set by safeQuerystringParser). */
export function badQueryParameter(query: unknown): string | undefined {
  return query && typeof query === 'object' ? (query as Query)[BAD_QUERY] : undefined;
}

/** Depth of `[`/`{` nesting outside strings; stops counting as soon as `limit` is passed. */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Field paths of every unsafe string (or key) in a parsed JSON value, at most `max`. */
export function unsafeStrings(value: unknown, max = 10): FieldError[] {
  const found: FieldError[] = [];
  const visit = (node: unknown, path: string) => {
    if (found.length >= max) return;
    if (typeof node === 'string') {
      if (isUnsafeText(node)) found.push({ field: path || 'body', message: 'Must not contain NUL characters or unpaired surrogates.' });
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, path ? `${path}.${index}` : String(index)));
    } else if (node && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const child = path ? `${path}.${key}` : key;
        if (isUnsafeText(key)) found.push({ field: child.replace(/[^\x20-\x7e]/g, '?'), message: 'Invalid field name.' });
        else visit(item, child);
      }
    }
  };
  visit(value, '');
  return found;
}

function hasPrototypeKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPrototypeKeys);
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return true;
      if (key === 'constructor' && item && typeof item === 'object' && Object.hasOwn(item, 'prototype')) return true;
      if (hasPrototypeKeys(item)) return true;
    }
  }
  return false;
}

/** Parses a JSON body under the discipline above; throws AppError (400) for every refusal. */
export function parseJsonBody(text: string): unknown {
  // Clients commonly send Content-Type: application/json with no body on body-less writes (follow,
  // like, logout): that is no body; a route whose schema needs one answers 400 VALIDATION_FAILED.
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text)) {
    throw new AppError('MALFORMED_REQUEST', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('MALFORMED_REQUEST', 'The request body is not valid JSON.');
  }
  if (hasPrototypeKeys(value)) throw new AppError('MALFORMED_REQUEST', 'The request body uses a reserved field name.');
  const unsafe = unsafeStrings(value);
  if (unsafe.length > 0) throw AppError.validation(unsafe, 'The request has text that cannot be stored.');
  return value;
}

/** multipart/* without a boundary parameter cannot be parsed. */
export function multipartWithoutBoundary(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const lower = contentType.toLowerCase();
  if (!lower.startsWith('multipart/')) return false;
  return !/;\s*boundary=("[^"]+"|[^;\s]+)/.test(lower);
}

function paramErrors(params: unknown): FieldError[] {
  if (!params || typeof params !== 'object') return [];
  const out: FieldError[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' && isUnsafeText(value))
      out.push({ field: key === '*' ? 'path' : key, message: 'Must not contain NUL characters or unpaired surrogates.' });
  }
  return out;
}

/**
 * Installs the discipline on a Fastify app whose JSON bodies it parses (the services). The
 * gateway, which never parses bodies, uses the query and path parts through its own hooks.
 */
export function registerInputDiscipline(app: FastifyInstance, options: { parseJson: boolean }): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    checkUrl(request);
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const errors = paramErrors(request.params);
    if (errors.length > 0) throw AppError.validation(errors);
  });
  if (options.parseJson) {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
  }
}

/** Query and content-type checks that need nothing but the request line and headers. */
export function checkUrl(request: FastifyRequest): void {
  const bad = badQueryParameter(request.query);
  if (bad !== undefined) {
    throw AppError.validation([{ field: bad.replace(/[^\x20-\x7e]/g, '?') || 'query', message: 'Invalid percent-encoding or character in the query string.' }]);
  }
  if (multipartWithoutBoundary(request.headers['content-type'])) {
    throw new AppError('MALFORMED_REQUEST', 'A multipart body needs a boundary parameter in its Content-Type.');
  }
}

/**
 * For a server that does not route the path itself (the gateway proxies it whole): every
 * percent-encoded segment must decode, and to text without NUL or unpaired surrogates.
 */
export function checkPath(url: string): void {
  const path = url.split('?')[0] ?? '';
  if (!path.includes('%')) return;
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw AppError.validation([{ field: 'path', message: 'The URL has an invalid percent-encoding.' }]);
    }
    if (isUnsafeText(decoded)) throw AppError.validation([{ field: 'path', message: 'Must not contain NUL characters or unpaired surrogates.' }]);
  }
}
