import type { FastifyInstance } from 'fastify';
import { buildErrorResponse } from '@msp/errors';
import { isDraining, SHUTDOWN_RETRY_AFTER_SECONDS } from './shutdown.js';

/** A named check of a real dependency; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2000;

async function runCheck(check: ReadinessCheck): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export async function runChecks(checks: Record<string, ReadinessCheck>): Promise<{ up: boolean; checks: Record<string, 'up' | 'down'> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => runCheck(checks[name]!)));
  const out: Record<string, 'up' | 'down'> = {};
  names.forEach((name, i) => {
    out[name] = results[i]!;
  });
  return { up: results.every((r) => r === 'up'), checks: out };
}

/**
 * /health: the process answers (liveness). /ready: every real dependency answers (readiness), and
 * the process is not shutting down: from the signal on it answers 503 at once (shutdown.ts), so that
 * the load balancer stops routing before the listener closes.
 */
export function registerHealth(app: FastifyInstance, service: string, checks: Record<string, ReadinessCheck>): void {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'up', service }));
  app.get('/ready', { schema: { hide: true } }, async (request, reply) => {
    if (isDraining(app)) {
      const body = buildErrorResponse({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: `${service} is shutting down`,
        path: request.url,
        requestId: String(request.id),
      });
      return reply
        .code(503)
        .header('retry-after', SHUTDOWN_RETRY_AFTER_SECONDS)
        .send({ ...body, service });
    }
    const result = await runChecks(checks);
    if (result.up) return { status: 'up', service, checks: result.checks };
    const body = buildErrorResponse({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: `${service} is not ready`,
      path: request.url,
      requestId: String(request.id),
    });
    return reply
      .code(503)
      .header('retry-after', '5')
      .send({ ...body, service, checks: result.checks });
  });
}
