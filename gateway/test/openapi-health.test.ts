import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startHarness, type Harness } from './helpers.js';

const errorResponse = {
  type: 'object',
  required: ['status', 'code'],
  properties: { status: { type: 'integer' }, code: { type: 'string' } },
};

const identityDoc = {
  openapi: '3.0.3',
  info: { title: 'identity service', version: '0.1.0' },
  paths: {
    '/api/users/me': {
      get: {
        summary: 'Get current user profile',
        security: [{ bearerAuth: [] }],
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Profile' } } } },
          '401': { description: 'Unauthorized', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Profile: { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' } } },
      ErrorResponse: errorResponse,
    },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
  },
};

const catalogDoc = {
  openapi: '3.0.3',
  info: { title: 'catalog service', version: '0.1.0' },
  paths: {
    '/api/genres': {
      get: {
        summary: 'Genres',
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } } },
      },
    },
    '/api/tracks/{trackId}': {
      get: {
        summary: 'Track metadata',
        parameters: [{ name: 'trackId', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Profile' } } } },
          '404': { description: 'Not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        },
      },
    },
  },
  components: {
    // Same name as identity's Profile but another shape: must not overwrite it.
    schemas: { Profile: { type: 'object', properties: { trackCount: { type: 'integer' } } }, ErrorResponse: errorResponse },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
  },
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    services: {
      identity: { openapi: identityDoc },
      catalog: { openapi: catalogDoc },
      messaging: 'stopped',
      billing: { ready: 'down' },
    },
  });
});
afterAll(async () => {
  await h?.close();
});

describe('GET /api/openapi.json: one merged OpenAPI 3.0.3 document', () => {
  it('merges the services paths and components into a valid document', async () => {
    const response = await fetch(`${h.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const doc = await json<Record<string, any>>(response);
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.title).toMatch(/Music Streaming Platform/);
    expect(doc.servers).toEqual([{ url: 'http://gateway.test' }]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/users/me', '/api/genres', '/api/tracks/{trackId}', '/api/health', '/api/openapi.json', '/api/docs']),
    );
    expect(doc.paths['/api/users/me'].get.tags).toEqual(['identity']);
    expect(doc.paths['/api/genres'].get.tags).toEqual(['catalog']);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorResponse).toEqual(errorResponse);
    // the clashing Profile schema of catalog was renamed and its $ref follows
    expect(doc.components.schemas.Profile.properties).toHaveProperty('username');
    expect(doc.components.schemas.catalog_Profile.properties).toHaveProperty('trackCount');
    expect(doc.paths['/api/tracks/{trackId}'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/catalog_Profile');
    // services without a document (stopped, or none served) are listed, not fatal
    expect(doc['x-unavailable-services']).toEqual(expect.arrayContaining(['messaging', 'social']));
    expect(doc['x-unavailable-services']).not.toContain('identity');

    await expect(SwaggerParser.validate(structuredClone(doc) as Parameters<typeof SwaggerParser.validate>[0] & object)).resolves.toMatchObject({
      openapi: expect.stringMatching(/^3\./),
    });
  });
});

describe('GET /api/docs: interactive reference from swagger-ui-dist, no CDN', () => {
  it('serves the page, its bundle and an initializer pointed at /api/openapi.json', async () => {
    for (const path of ['/api/docs', '/api/docs/']) {
      const page = await fetch(`${h.url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const html = await page.text();
      expect(html).toContain('/api/docs/swagger-ui-bundle.js');
      expect(html).not.toMatch(/https?:\/\//);
    }
    const bundle = await fetch(`${h.url}/api/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const init = await (await fetch(`${h.url}/api/docs/swagger-initializer.js`)).text();
    expect(init).toContain("url: '/api/openapi.json'");
    expect(init).not.toContain('petstore');
    const csp = (await fetch(`${h.url}/api/docs/`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
  });
});

describe('GET /api/health: readiness of every service', () => {
  it('answers 503 with an ErrorResponse and up/down per service when some are down', async () => {
    const response = await fetch(`${h.url}/api/health`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = await json<Record<string, any>>(response);
    expect(body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', error: 'Service Unavailable', path: '/api/health' });
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
    expect(typeof body.timestamp).toBe('string');
    expect(body.services.identity).toEqual({ status: 'up', checks: { database: 'up' } });
    expect(body.services.messaging).toMatchObject({ status: 'down', error: 'unreachable' });
    expect(body.services.billing).toMatchObject({ status: 'down', checks: { database: 'down' } });
    expect(Object.keys(body.services).sort()).toEqual(['billing', 'catalog', 'identity', 'media-processing', 'messaging', 'notification', 'social']);
    expect(body.message).toMatch(/messaging/);
  });
});

describe('GET /api/health with every service up', () => {
  let allUp: Harness;
  beforeAll(async () => {
    allUp = await startHarness();
  });
  afterAll(async () => {
    await allUp?.close();
  });

  it('answers 200 { status: up, services }', async () => {
    const response = await fetch(`${allUp.url}/api/health`);
    expect(response.status).toBe(200);
    const body = await json<Record<string, any>>(response);
    expect(body.status).toBe('up');
    expect(Object.values(body.services)).toHaveLength(7);
    for (const service of Object.values(body.services)) expect(service).toEqual({ status: 'up', checks: { database: 'up' } });
  });

  it('serves /health and /ready (Redis reachable) on the gateway itself', async () => {
    expect(await json(await fetch(`${allUp.url}/health`))).toEqual({ status: 'up', service: 'gateway' });
    expect(await json(await fetch(`${allUp.url}/ready`))).toEqual({ status: 'up', service: 'gateway', checks: { redis: 'up' } });
  });

  it('exposes Prometheus metrics with per-route request durations at /metrics', async () => {
    await fetch(`${allUp.url}/api/health`);
    const metrics = await (await fetch(`${allUp.url}/metrics`)).text();
    expect(metrics).toContain('process_cpu_user_seconds_total');
    expect(metrics).toMatch(/http_request_duration_seconds_count\{service="gateway",method="GET",route="\/api\/health",status="200"\}/);
  });
});
