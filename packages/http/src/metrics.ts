import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, register } from 'prom-client';
import { sendError } from '@msp/errors';

let defaultsCollected = false;

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['service', 'method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/**
 * One request in `http_request_duration_seconds`: what the onResponse hook of `registerMetrics`
 * records, for a request answered outside Fastify's hooks (the gateway's fast lane).
 */
export function observeHttpRequest(service: string, method: string, route: string, statusCode: number, seconds: number): void {
  httpDuration.observe({ service, method, route, status: String(statusCode) }, seconds);
}

export interface MetricsOptions {
  /**
   * When set, /metrics answers only `Authorization: Bearer <token>`; when `null`, only peers on the
   * loopback interface (development). Absent: open (services, reachable only inside the cluster).
   */
  token?: string | null;
}

function loopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Prometheus metrics at /metrics (process defaults, request durations, event counters). */
export function registerMetrics(app: FastifyInstance, service: string, options: MetricsOptions = {}): void {
  if (!defaultsCollected) {
    collectDefaultMetrics();
    defaultsCollected = true;
  }
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    observeHttpRequest(service, request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (options.token !== undefined) {
      const allowed =
        options.token === null
          ? loopback(request.socket?.remoteAddress) && request.headers['x-forwarded-for'] === undefined
          : request.headers.authorization === `Bearer ${options.token}`;
      if (!allowed) {
        // Indistinguishable from a path that does not exist.
        return sendError(request, reply, 404, 'ROUTE_NOT_FOUND', `No route for GET ${request.url.split('?')[0]}.`);
      }
    }
    reply.type(register.contentType);
    return register.metrics();
  });
}
