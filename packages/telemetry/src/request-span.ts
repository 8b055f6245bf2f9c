import { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';

/**
 * A request's span held by the request itself rather than by the context manager: for a process
 * that only forwards requests (the gateway), where the span is needed in two places only (its log
 * lines and the trace context it forwards). @fastify/otel instead makes the span the active context
 * of every hook and handler through AsyncLocalStorage (on Node 20 a promise hook for every promise of
 * the process); in the gateway the change measured −2 % CPU per request, within the noise
 * (docs/benchmarks/gateway.md "Stage 4"). Spans are recorded and exported exactly as the other
 * instrumentations' are (same tracer provider, sampler and exporter).
 */
export interface RequestSpan {
  readonly span: Span;
  /** Log fields of the span (`traceId`, `spanId`). */
  readonly ids: { traceId: string; spanId: string };
}

const tracerName = '@msp/telemetry/request';

/**
 * Starts the span of an incoming request: a child of the active span when an http server
 * instrumentation already runs (images with OTLP export), else of the client's `traceparent`, else
 * the root of a new trace.
 */
export function startRequestSpan(method: string, path: string, headers: Record<string, string | string[] | undefined>): RequestSpan {
  const active = context.active();
  const underHttpSpan = trace.getSpan(active) !== undefined;
  const parent = underHttpSpan ? active : typeof headers.traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
  const span = trace
    .getTracer(tracerName)
    .startSpan(
      'request',
      { kind: underHttpSpan ? SpanKind.INTERNAL : SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path } },
      parent,
    );
  const { traceId, spanId } = span.spanContext();
  return { span, ids: { traceId, spanId } };
}

/** Records a failure on the span (the status stays ERROR when the answer is written). */
export function failRequestSpan(request: RequestSpan, err: Error): void {
  request.span.recordException(err);
  request.span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
}

/** Ends the span with the answer's status code; `route` names it (`GET /api/tracks/{trackId}`). */
export function endRequestSpan(request: RequestSpan, statusCode: number, route?: { method: string; path: string }): void {
  const { span } = request;
  if (route) {
    span.updateName(`${route.method} ${route.path}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route.path);
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
  if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** W3C `traceparent`/`tracestate` naming the request's span as the parent (for a forwarded call). */
export function requestTraceCarrier(request: RequestSpan): { traceparent?: string; tracestate?: string } {
  // What W3CTraceContextPropagator.inject writes for this span, without building a context for it.
  const spanContext = request.span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  const { traceId, spanId, traceFlags, traceState } = spanContext;
  return { traceparent: `00-${traceId}-${spanId}-0${Number(traceFlags || TraceFlags.NONE).toString(16)}`, tracestate: traceState?.serialize() };
}
