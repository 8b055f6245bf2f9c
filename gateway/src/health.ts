import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { SERVICE_NAMES, type ServiceName } from '@msp/contracts';
import { buildErrorResponse } from '@msp/errors';
import { isDraining, runChecks, SHUTDOWN_RETRY_AFTER_SECONDS } from '@msp/http';
import type { ServiceUrls } from './route-table.js';
import { RETRY_AFTER_SECONDS } from './upstream-errors.js';

export interface ServiceHealth {
  status: 'up' | 'down';
  checks?: Record<string, unknown>;
  error?: string;
}

const SERVICE_READY_TIMEOUT_MS = 2000;

async function probe(baseUrl: string): Promise<ServiceHealth> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/ready`, { signal: AbortSignal.timeout(SERVICE_READY_TIMEOUT_MS) });
    // A body that is not JSON reads as one without checks; the status code still decides.
    const body: unknown = await response.json().catch(() => null);
    const checks =
      typeof body === 'object' && body !== null && typeof (body as { checks?: unknown }).checks === 'object'
        ? ((body as { checks: Record<string, unknown> }).checks ?? undefined)
        : undefined;
    const health: ServiceHealth = { status: response.ok ? 'up' : 'down' };
    if (checks) health.checks = checks;
    if (!response.ok) health.error = `answered ${response.status}`;
    return health;
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return { status: 'down', error: timedOut ? 'no answer within 2 s' : 'unreachable' };
  }
}

/**
 * `/health` (the gateway process answers), `/ready` (its Redis answers: without it no bearer
 * request can be checked; and the gateway is not shutting down: from the signal on it fails at once,
 * packages/http shutdown.ts) and `/api/health` (every service's `/ready`, in parallel).
 */
export function registerHealth(app: FastifyInstance, redis: Redis, serviceUrls: ServiceUrls): void {
  app.get('/health', async () => ({ status: 'up', service: 'gateway' }));

  app.get('/ready', async (request, reply) => {
    if (isDraining(app)) {
      const body = buildErrorResponse({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: 'gateway is shutting down',
        path: request.url,
        requestId: String(request.id),
      });
      return reply
        .code(503)
        .header('retry-after', SHUTDOWN_RETRY_AFTER_SECONDS)
        .send({ ...body, service: 'gateway' });
    }
    const result = await runChecks({ redis: () => redis.ping() });
    if (result.up) return { status: 'up', service: 'gateway', checks: result.checks };
    const body = buildErrorResponse({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'gateway is not ready',
      path: request.url,
      requestId: String(request.id),
    });
    return reply
      .code(503)
      .header('retry-after', RETRY_AFTER_SECONDS)
      .send({ ...body, service: 'gateway', checks: result.checks });
  });

  app.get('/api/health', async (request, reply) => {
    const entries = await Promise.all(SERVICE_NAMES.map(async (name) => [name, await probe(serviceUrls[name])] as const));
    const services = Object.fromEntries(entries) as Record<ServiceName, ServiceHealth>;
    const down = entries.filter(([, health]) => health.status === 'down').map(([name]) => name);
    if (down.length === 0) return { status: 'up', services };
    const body = buildErrorResponse({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: `Unavailable: ${down.join(', ')}.`,
      path: request.url,
      requestId: String(request.id),
    });
    return reply
      .code(503)
      .header('retry-after', RETRY_AFTER_SECONDS)
      .send({ ...body, services });
  });
}
