import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { FastifyOtelInstrumentation } from '@fastify/otel';

/**
 * One trace per request across the fleet (OpenTelemetry). Every process has a tracer provider, the
 * W3C trace-context propagator and an AsyncLocalStorage context manager, so spans get real ids and
 * every log line written inside a request or an event carries its trace id (`traceId`, see
 * `logMixin`). Spans leave the process only when an exporter is configured:
 * OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP, e.g. http://otel-collector:4318) in production, an
 * in-memory exporter in tests. Off (no exporter) by default in development and tests.
 *
 * Instrumentations: @fastify/otel (the Fastify project's OpenTelemetry instrumentation, registered
 * by createHttpApp and the gateway as a plugin) and undici (service-to-service calls; both work
 * through diagnostics channels, so they also run under tsx and vitest). A request that already
 * carries a `traceparent` is not traced by the undici instrumentation: its sender propagated the
 * context itself (the gateway's proxy forwards its own server span's context instead of a client
 * span per proxied request: about 8 % of the gateway's CPU per request, docs/benchmarks/gateway.md).
 * The http and pg instrumentations patch modules as they load: `node --import ./dist/instrument.js`
 * (the images' command) turns them on before the application is imported. The NATS hop carries the
 * context in the event envelope (`traceparent`, packages/events).
 */

export interface TelemetryOptions {
  service: string;
  /** OTLP/HTTP base URL of a collector; default OTEL_EXPORTER_OTLP_ENDPOINT. Empty: no export. */
  otlpEndpoint?: string;
  /** An exporter of one's own (tests: InMemorySpanExporter), exported span by span. */
  exporter?: SpanExporter;
  /** Fraction of new traces sampled when exporting (OTEL_TRACES_SAMPLER_ARG, default 1); a caller's decision is followed. */
  sampleRatio?: number;
  /** Extra instrumentations (the http and pg ones of instrument.ts). */
  instrumentations?: Instrumentation[];
  /**
   * Client spans for undici calls (default true). The gateway's process turns them off: its only
   * undici calls are the proxied requests, which carry its own context (`forwardHeaders`); even
   * ignored, the instrumentation's diagnostics-channel subscribers cost it CPU on every request.
   */
  undici?: boolean;
}

interface TelemetryState {
  provider: TracerProvider;
  fastify: FastifyOtelInstrumentation;
  service: string;
  exporting: boolean;
}

// Shared through globalThis: each bundled entry (dist/instrument.js, dist/server.js) has its own
// copy of this module, and the first one to start wins.
const STATE = Symbol.for('msp.telemetry');
type GlobalWithState = typeof globalThis & { [STATE]?: TelemetryState };

function state(): TelemetryState | undefined {
  return (globalThis as GlobalWithState)[STATE];
}

/** Starts tracing for the process once; later calls (other apps of a test process) reuse it. */
export function initTelemetry(options: TelemetryOptions): TelemetryState {
  const existing = state();
  if (existing) return existing;
  const endpoint = options.otlpEndpoint ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '';
  const processors: SpanProcessor[] = [];
  if (options.exporter) processors.push(new SimpleSpanProcessor({ exporter: options.exporter }));
  if (endpoint) processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }) }));
  // Without an exporter nothing is recorded (spans still get ids: logs correlate, context propagates).
  const ratio = processors.length === 0 ? 0 : (options.sampleRatio ?? Number(process.env.OTEL_TRACES_SAMPLER_ARG ?? 1));
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME ?? options.service }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1) }),
    spanProcessors: processors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const fastify = new FastifyOtelInstrumentation({ instrumentHooks: false, ignorePaths: (route: { url?: string }) => isProbe(route.url) });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      fastify,
      ...(options.undici === false ? [] : [new UndiciInstrumentation({ ignoreRequestHook: (request) => carriesTraceContext(request.headers) })]),
      ...(options.instrumentations ?? []),
    ],
  });
  const created: TelemetryState = { provider, fastify, service: options.service, exporting: processors.length > 0 };
  (globalThis as GlobalWithState)[STATE] = created;
  return created;
}

/** Whether undici request headers (`[name, value, ...]` in undici 7, a header block before) hold a `traceparent`. */
function carriesTraceContext(headers: unknown): boolean {
  if (typeof headers === 'string') return /(?:^|\r\n)traceparent:/i.test(headers);
  if (!Array.isArray(headers)) return false;
  for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'traceparent') return true;
  return false;
}

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** Whether a request URL (query or not) is a health, readiness or metrics probe: those are never traced. */
export function isProbe(url: string | undefined): boolean {
  return PROBES.has((url ?? '').split('?', 1)[0] ?? '');
}

/** The Fastify plugin of @fastify/otel (request spans, context active in handlers); register it first. */
export function fastifyTracing(service: string) {
  return initTelemetry({ service }).fastify.plugin();
}

/** Sends the spans still buffered (graceful shutdown). */
export async function flushTelemetry(): Promise<void> {
  // A collector that is down at shutdown loses the last spans; the shutdown itself must go on.
  await state()
    ?.provider.forceFlush()
    .catch(() => undefined);
}

/** `{ traceId, spanId }` of the active span, for log lines; nothing outside a trace. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { traceId, spanId } : undefined;
}

/** W3C `traceparent`/`tracestate` of the active context (to carry it through NATS). */
export function currentTraceCarrier(): { traceparent?: string; tracestate?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return { traceparent: carrier.traceparent, tracestate: carrier.tracestate };
}

const recordGetter: TextMapGetter<Record<string, string | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/**
 * Runs `fn` in a new span whose parent is the context carried by `carrier` (an event's
 * traceparent), or the active context when there is none. The span ends when `fn` settles and
 * records its failure.
 */
export async function withSpan<T>(
  name: string,
  options: { kind?: SpanKind; carrier?: { traceparent?: string | null; tracestate?: string | null }; attributes?: Record<string, string | number | boolean> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  let parent: Context = context.active();
  if (options.carrier?.traceparent) {
    parent = propagation.extract(parent, { traceparent: options.carrier.traceparent, tracestate: options.carrier.tracestate ?? undefined }, recordGetter);
  }
  const tracer = trace.getTracer('@msp/telemetry');
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
