import { APP_SCOPES, requiredScope, ROUTE_SCOPES, SERVICE_NAMES, type AppScope, type ServiceName } from '@msp/contracts';
import type { ServiceUrls } from './route-table.js';

type JsonObject = Record<string, unknown>;

export interface OpenApiDocument extends JsonObject {
  openapi: '3.0.3';
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string }>;
  paths: Record<string, JsonObject>;
  components: Record<string, JsonObject>;
  tags: Array<{ name: string; description?: string }>;
  'x-unavailable-services'?: string[];
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deep copy that renames `$ref`s to components renamed during the merge. */
function rewriteRefs(value: unknown, renames: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renames));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof child === 'string' ? (renames.get(child) ?? child) : rewriteRefs(child, renames);
  }
  return out;
}

const ok = { description: 'OK' };

/** The gateway's own operations (docs/api.md "Gateway"), documented next to the services'. */
const GATEWAY_PATHS: Record<string, JsonObject> = {
  '/api/health': {
    get: {
      tags: ['gateway'],
      summary: 'Readiness of every service behind the gateway',
      responses: {
        '200': { description: 'All services are up', content: { 'application/json': { schema: { type: 'object' } } } },
        '503': { description: 'At least one service is down (ErrorResponse plus `services`)', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
  '/api/openapi.json': {
    get: { tags: ['gateway'], summary: 'This document', responses: { '200': { ...ok, content: { 'application/json': { schema: { type: 'object' } } } } } },
  },
  '/api/docs': {
    get: { tags: ['gateway'], summary: 'Interactive API reference', responses: { '200': { ...ok, content: { 'text/html': { schema: { type: 'string' } } } } } },
  },
  '/api/ws': {
    get: {
      tags: ['gateway'],
      summary: 'STOMP websocket (WS-1), proxied to notification; the CONNECT frame carries the bearer token',
      responses: { '101': { description: 'Switching protocols' } },
    },
  },
};

const SCOPE_DESCRIPTIONS: Record<AppScope, string> = {
  read: "Read the user's profile, tracks, playlists, likes and notifications (always granted)",
  write: "Upload and edit the user's own tracks, playlists and profile",
  engage: 'Like, repost, follow, block, comment and report',
  messages: 'Read and send direct messages',
  webhooks: 'Receive events about the account',
};

/** The OAuth 2.1 scheme of app tokens (docs/developer-platform.md). */
function oauth2Scheme(publicBaseUrl: string): JsonObject {
  const api = `${publicBaseUrl.replace(/\/+$/, '')}/api`;
  return {
    type: 'oauth2',
    description: 'Access tokens of third-party apps: authorization code with PKCE (S256). Each operation lists the scope it needs.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${api}/oauth/authorize`,
        tokenUrl: `${api}/oauth/token`,
        refreshUrl: `${api}/oauth/token`,
        scopes: Object.fromEntries(APP_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
      },
    },
  };
}

/**
 * Every operation that takes a token gets the OAuth2 requirement of its scope next to bearerAuth
 * (route-scopes.ts); `x-app-scope` names the scope, or `closed` where app tokens are refused.
 */
function addAppScopes(paths: Record<string, JsonObject>): void {
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method) || !isObject(operation) || typeof operation.operationId !== 'string') continue;
      const security = Array.isArray(operation.security) ? operation.security : null;
      const takesToken = security?.some((entry) => isObject(entry) && 'bearerAuth' in entry) ?? false;
      if (!takesToken && !Object.hasOwn(ROUTE_SCOPES, operation.operationId)) continue;
      const scope = requiredScope(operation.operationId);
      operation['x-app-scope'] = scope;
      if (scope !== 'closed' && security && !security.some((entry) => isObject(entry) && 'oauth2' in entry)) {
        security.push({ oauth2: [scope] });
      }
    }
  }
}

/**
 * Merges the services' OpenAPI documents: paths (first service wins on a clash), components of
 * every kind (a same-named but different component is renamed `<service>_<name>` and that
 * service's `$ref`s follow), and tags; the gateway's own routes are added last.
 */
export function mergeOpenApi(
  documents: Array<{ service: ServiceName; document: JsonObject }>,
  unavailable: ServiceName[],
  publicBaseUrl: string,
): OpenApiDocument {
  const merged: OpenApiDocument = {
    openapi: '3.0.3',
    info: {
      title: 'Music Streaming Platform API',
      version: '1.0.0',
      description: 'Public HTTP API of the music streaming platform, served through the gateway (merged from every service).',
    },
    servers: [{ url: publicBaseUrl }],
    paths: {},
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, oauth2: oauth2Scheme(publicBaseUrl) } },
    tags: [{ name: 'gateway', description: 'Answered by the gateway itself' }],
  };
  const tagNames = new Set(['gateway']);

  for (const { service, document } of documents) {
    const components = isObject(document.components) ? document.components : {};
    const renames = new Map<string, string>();
    for (const [section, entries] of Object.entries(components)) {
      if (!isObject(entries)) continue;
      const target = (merged.components[section] ??= {});
      for (const [name, definition] of Object.entries(entries)) {
        const existing = target[name];
        if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition)) {
          renames.set(`#/components/${section}/${name}`, `#/components/${section}/${service}_${name}`);
        }
      }
    }
    for (const [section, entries] of Object.entries(components)) {
      if (!isObject(entries)) continue;
      const target = merged.components[section] ?? {};
      for (const [name, definition] of Object.entries(entries)) {
        const renamed = renames.get(`#/components/${section}/${name}`);
        const finalName = renamed ? `${service}_${name}` : name;
        target[finalName] ??= rewriteRefs(definition, renames);
      }
    }

    if (!tagNames.has(service)) {
      tagNames.add(service);
      merged.tags.push({ name: service, description: `Owned by the ${service} service` });
    }
    if (Array.isArray(document.tags)) {
      for (const tag of document.tags) {
        if (isObject(tag) && typeof tag.name === 'string' && !tagNames.has(tag.name)) {
          tagNames.add(tag.name);
          merged.tags.push(tag as { name: string });
        }
      }
    }

    const paths = isObject(document.paths) ? document.paths : {};
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      const target = (merged.paths[path] ??= {});
      for (const [key, value] of Object.entries(rewriteRefs(item, renames) as JsonObject)) {
        if (key in target) continue;
        if (HTTP_METHODS.has(key) && isObject(value) && !Array.isArray(value.tags)) {
          target[key] = { ...value, tags: [service] };
        } else {
          target[key] = value;
        }
      }
    }
  }

  addAppScopes(merged.paths);
  for (const [path, item] of Object.entries(GATEWAY_PATHS)) {
    merged.paths[path] ??= item;
  }
  if (unavailable.length > 0) merged['x-unavailable-services'] = [...unavailable];
  return merged;
}

export interface OpenApiProviderOptions {
  serviceUrls: ServiceUrls;
  publicBaseUrl: string;
  fetchTimeoutMs?: number;
  cacheMs?: number;
}

/**
 * Fetches every service's `/openapi.json` in parallel (a slow or stopped service is skipped and
 * listed in `x-unavailable-services`) and caches the merge, shorter when something was missing.
 */
export function createOpenApiProvider(options: OpenApiProviderOptions): { get(): Promise<OpenApiDocument> } {
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 2000;
  const cacheMs = options.cacheMs ?? 30_000;
  let cached: { document: OpenApiDocument; expiresAt: number } | null = null;
  let inFlight: Promise<OpenApiDocument> | null = null;

  async function fetchOne(service: ServiceName): Promise<JsonObject | null> {
    try {
      const base = options.serviceUrls[service].replace(/\/+$/, '');
      const response = await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(fetchTimeoutMs) });
      if (!response.ok) return null;
      const body: unknown = await response.json();
      return isObject(body) && isObject(body.paths) ? body : null;
    } catch {
      return null;
    }
  }

  async function build(): Promise<OpenApiDocument> {
    const results = await Promise.all(SERVICE_NAMES.map(async (service) => ({ service, document: await fetchOne(service) })));
    const documents = results.flatMap((r) => (r.document ? [{ service: r.service, document: r.document }] : []));
    const unavailable = results.filter((r) => !r.document).map((r) => r.service);
    const document = mergeOpenApi(documents, unavailable, options.publicBaseUrl);
    cached = { document, expiresAt: Date.now() + (unavailable.length > 0 ? Math.min(cacheMs, 5000) : cacheMs) };
    return document;
  }

  return {
    get() {
      if (cached && cached.expiresAt > Date.now()) return Promise.resolve(cached.document);
      inFlight ??= build().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
  };
}
