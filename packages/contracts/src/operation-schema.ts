import type { ZodType } from 'zod';
import type { RouteContract } from './route-types.js';

/**
 * An operation's input and output (the route schema Fastify validates with and OpenAPI documents):
 * path parameters, query, body, headers and the answer per status. `operation(id)` in @msp/http
 * hands it to the route, which cannot give its own.
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
  /** What the operation does, where its summary is not enough (OpenAPI's description). */
  description?: string;
}

/**
 * One public operation, declared once: its contract row (method, path, auth, owner, errors, app
 * scope; `ROUTES` in routes.ts is built from these) and its input and output.
 */
export type OperationDeclaration = Omit<RouteContract, 'id'> & OperationSchema;

/** The operations of one service module, by operation id (packages/contracts/src/operations/<service>/<module>.ts). */
export type Operations = Readonly<Record<string, OperationDeclaration>>;

/** The parts of a declaration that are the route's schema. */
export const OPERATION_SCHEMA_PARTS = ['params', 'querystring', 'body', 'headers', 'response', 'consumes', 'produces', 'description'] as const;
