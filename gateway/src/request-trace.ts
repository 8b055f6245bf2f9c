import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { endRequestSpan, failRequestSpan, initTelemetry, isProbe, startRequestSpan, type RequestSpan } from '@msp/telemetry';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span (null for probes); the proxy forwards its context (`forwardHeaders`). */
    traceSpan: RequestSpan | null;
  }
}

/** Where the logger factory leaves the span for the request's first hook. */
const kSpan = Symbol('msp.requestSpan');
type TracedMessage = IncomingMessage & { [kSpan]?: RequestSpan };

/**
 * One span per request, held by the request (packages/telemetry `startRequestSpan`), and its ids
 * bound to the request's logger, so every line the gateway writes for a request carries `traceId`
 * and `spanId`. No AsyncLocalStorage context per request, as @fastify/otel (which the services use)
 * makes (docs/benchmarks/gateway.md "Stage 4"). Register first.
 *
 * The span starts where Fastify makes the request's logger (its child logger factory), so that the
 * request has ONE child logger with the request id and the trace ids together. A second child made
 * from that one in a hook turned each request's logger into a prototype (V8 rebuilds an object's
 * map when it becomes one, and every inline cache that meets those loggers goes megamorphic): one
 * child instead of two was −14 % of the gateway's CPU per request (docs/benchmarks/gateway.md "Stage 5").
 */
export function registerRequestTrace(app: FastifyInstance): void {
  // The tracer provider, once per process (server.ts starts it first, without undici spans; a test
  // process that builds a gateway gets the default).
  initTelemetry({ service: 'gateway' });
  app.decorateRequest('traceSpan', null);
  app.setChildLoggerFactory((logger, bindings, options, raw) => {
    const url = raw.url ?? '/';
    if (isProbe(url)) return logger.child(bindings, options);
    const traced = startRequestSpan(raw.method ?? 'GET', url.split('?', 1)[0] ?? url, raw.headers);
    (raw as TracedMessage)[kSpan] = traced;
    return logger.child({ ...bindings, ...traced.ids }, options);
  });
  app.addHook('onRequest', (request, _reply, done) => {
    request.traceSpan = (request.raw as TracedMessage)[kSpan] ?? null;
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
