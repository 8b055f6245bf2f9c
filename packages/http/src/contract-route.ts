import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import {
  OPERATIONS,
  operationSchema,
  ROUTES,
  routeTag,
  type AuthRule,
  type HttpMethod,
  type InternalOperation,
  type OperationSchema,
  type RouteContract,
} from '@msp/contracts';
import { requireAdmin, requireCaller } from './identity.js';

const CONTRACTS = new Map<string, RouteContract>(ROUTES.map((route) => [route.id, route]));

/** What `operation(id)` puts in a route's options: the contract's method and path, and its id. */
export interface OperationRoute {
  method: HttpMethod;
  url: string;
  config: { operation: string };
}

type Declared = typeof OPERATIONS;
/** The declared schema of an operation id, as a type (the route's request and reply types follow from it). */
export type SchemaOf<K extends string> = K extends keyof Declared ? Pick<Declared[K], Extract<keyof Declared[K], keyof OperationSchema>> : Record<never, never>;

/** Fastify's form of a contract path: `/tracks/{trackId}` → `/tracks/:trackId`. */
export const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The contract of an operation id; throws for an id the contract does not hold (a typo fails at start). */
export function contractOf(id: string): RouteContract {
  const contract = CONTRACTS.get(id);
  if (!contract) throw new Error(`operation ${id} is not in the contract (packages/contracts/src/routes.ts)`);
  return contract;
}

/**
 * A public route registered from its contract (packages/contracts: routes.ts and operations/):
 *
 *   app.route({ ...operation('INS-2'), handler });
 *
 * The method, path and schema (input and output) come from the contract; `registerContractRoutes`
 * adds the operation id, summary, tag, deprecation, the OpenAPI security and the auth rule's check,
 * and refuses a route that gives a schema of its own, so none of them can drift from the contract.
 */
export function operation<const K extends string>(id: K): OperationRoute & { schema: SchemaOf<K> } {
  const contract = contractOf(id);
  return { method: contract.method, url: fastifyPath(contract.path), config: { operation: id }, schema: operationSchema(id) as SchemaOf<K> };
}

const SCHEMA_PARTS = ['params', 'querystring', 'body', 'headers', 'consumes', 'produces', 'description'] as const;

/** Whether a route's schema is, part for part, the one its operation declares (the same objects). */
function isDeclaredSchema(route: Record<string, unknown>, declared: OperationSchema): boolean {
  const own = SCHEMA_PARTS.every((part) => route[part] === declared[part]);
  const answers = (route.response ?? {}) as Record<string, unknown>;
  const declaredAnswers = (declared.response ?? {}) as Record<string, unknown>;
  const statuses = new Set([...Object.keys(answers), ...Object.keys(declaredAnswers)]);
  return own && [...statuses].every((status) => answers[status] === declaredAnswers[status]);
}

/**
 * A service-to-service route registered from its declaration (INTERNAL_OPERATIONS in @msp/contracts):
 *
 *   app.route({ ...internalRoute(INTERNAL_OPERATIONS.tracks), handler });
 *
 * Method, path, parameters, body and (unless the owner sends prebuilt JSON text) the answer's schema
 * come from the declaration the callers use too; hidden from OpenAPI.
 */
export function internalRoute<P extends InternalOperation['params'], B extends InternalOperation['body'], R extends InternalOperation['response']>(
  operation: InternalOperation<P, B, R>,
) {
  const schema = { hide: true, params: operation.params, body: operation.body, response: operation.prebuiltAnswer ? undefined : { 200: operation.response } };
  // Parts the operation does not have are left out (Fastify warns about a declared but empty body schema).
  const present = Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined)) as typeof schema;
  return { method: operation.method, url: operation.path, schema: present };
}

async function callerRequired(request: FastifyRequest) {
  requireCaller(request);
}

async function adminRequired(request: FastifyRequest) {
  requireAdmin(request);
}

/** The service's own check of each auth rule (the gateway applies the same rule before it). */
const AUTH_CHECKS: Record<AuthRule, ((request: FastifyRequest) => Promise<void>) | null> = {
  none: null,
  optional: null,
  bearer: callerRequired,
  admin: adminRequired,
  'webhook-signature': null,
};

const SECURITY: Record<AuthRule, Array<Record<string, string[]>> | undefined> = {
  none: undefined,
  optional: [{}, { bearerAuth: [] }],
  bearer: [{ bearerAuth: [] }],
  admin: [{ bearerAuth: [] }],
  'webhook-signature': undefined,
};

const hooks = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * Completes every route registered with `operation(id)` from its contract, and refuses at start a
 * route that names a contract operation id in its schema without being registered from it, or
 * whose method and path differ from the contract's.
 */
export function registerContractRoutes(app: FastifyInstance) {
  app.addHook('onRoute', (route: RouteOptions) => {
    const id = (route.config as { operation?: unknown } | undefined)?.operation;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string') {
      const named = schema.operationId;
      if (typeof named === 'string' && CONTRACTS.has(named)) {
        throw new Error(`route ${route.method} ${route.url} names ${named}: register it with operation('${named}')`);
      }
      return;
    }
    const contract = contractOf(id);
    if (id in OPERATIONS && route.method !== 'HEAD' && !isDeclaredSchema(schema, operationSchema(id))) {
      throw new Error(`route ${String(route.method)} ${route.url} gives its own schema: ${id}'s is declared in packages/contracts/src/operations`);
    }
    // Fastify's automatic HEAD twin of a GET comes through here too: it gets the same check.
    const method = route.method === 'HEAD' ? 'GET' : route.method;
    // Routes are registered under a prefix in some services; the contract's path must end the URL.
    if (method !== contract.method || !route.url.endsWith(fastifyPath(contract.path))) {
      throw new Error(`route ${String(route.method)} ${route.url} differs from ${id}: ${contract.method} ${contract.path}`);
    }
    route.schema = {
      ...schema,
      operationId: id,
      summary: contract.summary,
      tags: [routeTag(id)],
      ...(contract.deprecated ? { deprecated: true } : {}),
      ...(SECURITY[contract.auth] ? { security: SECURITY[contract.auth] } : {}),
    };
    const check = AUTH_CHECKS[contract.auth];
    if (check) route.onRequest = [check, ...hooks(route.onRequest)];
  });
}
