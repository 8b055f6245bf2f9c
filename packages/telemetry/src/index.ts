export {
  initTelemetry,
  fastifyTracing,
  flushTelemetry,
  activeTraceIds,
  currentTraceCarrier,
  isProbe,
  withSpan,
  SpanKind,
  type TelemetryOptions,
} from './tracing.js';
export { startRequestSpan, failRequestSpan, endRequestSpan, requestTraceCarrier, type RequestSpan } from './request-span.js';
export { logMixin } from './log.js';
