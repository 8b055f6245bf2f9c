export { initTelemetry, fastifyTracing, flushTelemetry, activeTraceIds, currentTraceCarrier, withSpan, SpanKind, type TelemetryOptions } from './tracing.js';
export { logMixin } from './log.js';
