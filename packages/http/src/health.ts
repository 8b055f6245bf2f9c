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
    const notReady = (message: string, retryAfter: string | number, extra: Record<string, unknown> = {}) =>
      reply
        .code(503)
        .header('retry-after', retryAfter)
        .send({
          ...buildErrorResponse({ status: 503, code: 'SERVICE_UNAVAILABLE', message, path: request.url, requestId: String(request.id) }),
          service,
          ...extra,
        });
    if (isDraining(app)) return notReady(`${service} is shutting down`, SHUTDOWN_RETRY_AFTER_SECONDS);
    const result = await runChecks(checks);
    if (result.up) return { status: 'up', service, checks: result.checks };
    return notReady(`${service} is not ready`, '5', { checks: result.checks });
  });
}
