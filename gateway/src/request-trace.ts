import type { FastifyInstance } from 'fastify';
import { endRequestSpan, failRequestSpan, initTelemetry, isProbe, startRequestSpan, type RequestSpan } from '@msp/telemetry';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span (null for probes); the proxy forwards its context (`forwardHeaders`). */
    traceSpan: RequestSpan | null;
  }
}

/**
 * One span per request, held by the request (packages/telemetry `startRequestSpan`), and its ids
 * bound to the request's logger, so every line the gateway writes for a request carries `traceId`
 * and `spanId`. No AsyncLocalStorage context per request, as @fastify/otel (which the services use)
 * makes (gateway/README.md "Fourth pass"). Register first.
 */
export function registerRequestTrace(app: FastifyInstance): void {
  // The tracer provider, once per process (server.ts starts it first, without undici spans; a test
  // process that builds a gateway gets the default).
  initTelemetry({ service: 'gateway' });
  app.decorateRequest('traceSpan', null);
  app.addHook('onRequest', (request, reply, done) => {
    if (isProbe(request.url)) return done();
    const traced = startRequestSpan(request.method, request.url.split('?', 1)[0] ?? request.url, request.headers);
    request.traceSpan = traced;
    request.log = request.log.child(traced.ids);
    reply.log = request.log;
    done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    if (request.traceSpan) failRequestSpan(request.traceSpan, error);
    done();
  });
  const end = (request: { traceSpan: RequestSpan | null; gatewayRoute: { method: string; path: string } | null }, statusCode: number) => {
    const traced = request.traceSpan;
    if (!traced) return;
    request.traceSpan = null;
    const route = request.gatewayRoute;
    endRequestSpan(traced, statusCode, route ? { method: route.method, path: `/api${route.path}` } : undefined);
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  // A client that goes away before its answer: the span still ends (499, nginx's "client closed").
  app.addHook('onRequestAbort', (request, done) => {
    end(request, 499);
    done();
  });
}
