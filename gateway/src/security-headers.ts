import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** Headers a browser script may read on the gateway's answers (CORS; app.ts and the fast lane). */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'deprecation', 'ratelimit', 'ratelimit-policy'] as const;

/**
 * Strict enough for a JSON API, loose enough for the Swagger UI at /api/docs (own assets, inline
 * styles it sets on elements, data: icons). No upgrade-insecure-requests: local http.
 */
export const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  // The web app is on another port/subdomain of the same site.
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/**
 * The headers helmet writes with these options, computed once. Nothing in them depends on the
 * request (no CSP nonces), whereas @fastify/helmet built the whole helmet middleware chain again on
 * every request (it parses the CSP directives each time).
 */
export function computeSecurityHeaders(options: Readonly<HelmetOptions> = SECURITY_HEADER_OPTIONS): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>();
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  let failure: unknown = null;
  helmet(options)({} as never, response as never, (err?: unknown) => {
    if (err) failure = err;
  });
  if (failure) throw failure;
  return [...headers.entries()];
}

/** Sets the precomputed security headers on every answer, the gateway's own errors included. */
export function registerSecurityHeaders(app: FastifyInstance, headers = computeSecurityHeaders()): void {
  app.addHook('onRequest', (_request, reply, done) => {
    // On the raw response, as helmet did: an upstream answer's own header of the same name wins.
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
}
