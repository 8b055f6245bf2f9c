import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { register } from 'prom-client';
import { z } from 'zod';
import { INTERNAL_OPERATIONS } from '@msp/contracts';
import { createHttpApp } from '../src/app.js';
import { internalRoute } from '../src/contract-route.js';
import { InternalCallError, InternalClient, closeInternalClients } from '../src/internal-client.js';
import { SERVICE_TOKEN_HEADER, verifyServiceToken } from '../src/internal-auth.js';

/** A stand-in for another service: records what it received. */
async function startTarget(): Promise<{ app: FastifyInstance; url: string; seen: { requestId?: string; service?: string | null }[] }> {
  const seen: { requestId?: string; service?: string | null }[] = [];
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (request) => {
    const token = request.headers[SERVICE_TOKEN_HEADER];
    seen.push({
      requestId: request.headers['x-request-id'] as string | undefined,
      service: verifyServiceToken(typeof token === 'string' ? token : undefined),
    });
  });
  app.post('/internal/echo', async (request) => ({ got: request.body }));
  app.get('/internal/missing', async (_request, reply) => reply.code(404).send({ code: 'RESOURCE_NOT_FOUND' }));
  app.get('/internal/broken', async (_request, reply) => reply.code(503).send({ code: 'SERVICE_UNAVAILABLE' }));
  app.get('/internal/slow', async () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 500)));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, seen };
}

async function counter(target: string, outcome: string): Promise<number> {
  const metric = await register.getSingleMetric('internal_calls_total')?.get();
  return metric?.values.find((v) => v.labels.target === target && v.labels.outcome === outcome)?.value ?? 0;
}

describe('internal HTTP client (service-to-service calls)', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let client: InternalClient;

  beforeAll(async () => {
    target = await startTarget();
    client = new InternalClient({ target: 'stand-in', baseUrl: `${target.url}/`, timeoutMs: 200 });
  });
  afterAll(async () => {
    await target.app.close();
    await closeInternalClients();
  });

  it('posts JSON with the service credential and answers the parsed body', async () => {
    const before = await counter('stand-in', 'ok');
    await expect(client.post('/internal/echo', { ids: [1, 2] })).resolves.toEqual({ got: { ids: [1, 2] } });
    expect(target.seen.at(-1)?.service).not.toBeNull();
    expect(await counter('stand-in', 'ok')).toBe(before + 1);
  });

  it('returns accepted statuses and throws on the others, counted by outcome', async () => {
    await expect(client.call('GET', '/internal/missing', undefined, { acceptStatuses: [404] })).resolves.toMatchObject({ status: 404 });
    const before = await counter('stand-in', 'server_error');
    const failure = await client.get('/internal/broken').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(InternalCallError);
    expect(failure).toMatchObject({ outcome: 'server_error', status: 503 });
    expect(await counter('stand-in', 'server_error')).toBe(before + 1);
    await expect(client.get('/internal/missing')).rejects.toMatchObject({ outcome: 'client_error', status: 404 });
  });

  it('gives up after its timeout', async () => {
    const started = Date.now();
    await expect(client.get('/internal/slow')).rejects.toMatchObject({ outcome: 'timeout' });
    expect(Date.now() - started).toBeLessThan(450);
  });

  it('reports an unreachable target without throwing anything else', async () => {
    const nobody = new InternalClient({ target: 'nobody', baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 });
    await expect(nobody.get('/internal/x')).rejects.toMatchObject({ outcome: 'unreachable' });
  });

  it('forwards the request id of the request being handled, also after its body was parsed', async () => {
    const app = await createHttpApp({ service: 'caller', logger: false });
    app.withTypeProvider().post('/relay', { schema: { body: z.object({ n: z.number() }) } }, async () => client.post('/internal/echo', {}));
    app.get('/relay', async () => client.post('/internal/echo', {}));
    await app.ready();
    try {
      await app.inject({ method: 'POST', url: '/relay', headers: { 'x-request-id': 'req-post-1' }, payload: { n: 1 } });
      expect(target.seen.at(-1)?.requestId).toBe('req-post-1');
      await app.inject({ method: 'GET', url: '/relay', headers: { 'x-request-id': 'req-get-2' } });
      expect(target.seen.at(-1)?.requestId).toBe('req-get-2');
    } finally {
      await app.close();
    }
  });

  it('sends a declared operation: path from its parameters, answer checked against its schema when asked', async () => {
    // billing's INTERNAL_OPERATIONS.subscription, answered by a route registered from the same declaration.
    const owner = await createHttpApp({ service: 'billing', logger: false });
    let answer: unknown = { userId: 7, status: 'active', currentPeriodEnd: null, cancelAtPeriodEnd: false };
    owner.route({ ...internalRoute(INTERNAL_OPERATIONS.subscription), handler: async (request) => ({ ...(answer as object), userId: request.params.userId }) });
    const url = await owner.listen({ port: 0, host: '127.0.0.1' });
    try {
      const billing = new InternalClient({ target: 'billing', baseUrl: url, timeoutMs: 2000 });
      const got = await billing.send(INTERNAL_OPERATIONS.subscription, { params: { userId: 7 } }, { validate: true });
      expect(got).toEqual({ status: 200, body: { userId: 7, status: 'active', currentPeriodEnd: null, cancelAtPeriodEnd: false } });
      // An id past PostgreSQL's integer is refused by the declared params (400), before any query.
      await expect(billing.send(INTERNAL_OPERATIONS.subscription, { params: { userId: 2147483648 } })).rejects.toMatchObject({ status: 400 });
      // The owner's route serialises through the declared schema: an unknown status cannot leave it...
      answer = { status: 'weird', currentPeriodEnd: null, cancelAtPeriodEnd: false };
      await expect(billing.send(INTERNAL_OPERATIONS.subscription, { params: { userId: 7 } })).rejects.toMatchObject({ outcome: 'server_error' });
      // ...and a caller that validates refuses an answer that does not match, whoever sent it.
      const loose = new InternalClient({ target: 'billing', baseUrl: `${target.url}/`, timeoutMs: 2000 });
      const echo = { ...INTERNAL_OPERATIONS.subscription, path: '/internal/echo', method: 'POST' as const };
      await expect(loose.send(echo, {}, { validate: true })).rejects.toThrow(/does not match/);
      await expect(billing.send(INTERNAL_OPERATIONS.tracks, { body: { viewerId: null, trackIds: [] } })).rejects.toThrow(/answered by catalog/);
    } finally {
      await owner.close();
    }
  });
});
