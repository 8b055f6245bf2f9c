import type { ZodType } from 'zod';

/**
 * An operation's input and output (the route schema Fastify validates with and OpenAPI documents):
 * path parameters, query, body, headers and the answer per status. Each public operation's is
 * declared once, under operations/, beside its method, path and auth in routes.ts; `operation(id)`
 * in @msp/http hands it to the route, which cannot give its own.
 */
export interface OperationSchema {
  params?: ZodType;
  querystring?: ZodType;
  body?: ZodType;
  headers?: ZodType;
  response?: Readonly<Record<number, ZodType>>;
  /** Media types the body may come as, beside JSON (multipart uploads, images). */
  consumes?: string[];
  /** Media types the answer may be, beside JSON (CSV, audio). */
  produces?: string[];
}

/** The schemas of one module's operations, by operation id. */
export type OperationSchemas = Readonly<Record<string, OperationSchema>>;
