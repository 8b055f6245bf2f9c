import { activeTraceIds } from './tracing.js';

/** Fields a log line gets from its context: the request id source of record is the caller's. */
export type ContextFields = () => Record<string, string> | undefined;

/**
 * A pino `mixin`: every line written inside a traced request or event carries `traceId` and
 * `spanId`, plus whatever `extra` returns (the request id of an event's handling, which has no
 * Fastify request logger to bind it) unless the logger already binds those keys.
 */
export function logMixin(extra?: ContextFields) {
  return (_merge: object, _level: number, logger?: { bindings(): Record<string, unknown> }): Record<string, string> => {
    const ids = activeTraceIds();
    const fields = extra?.();
    if (!ids && !fields) return {};
    const out: Record<string, string> = { ...(ids ?? {}) };
    if (fields) {
      const bound = logger?.bindings() ?? {};
      for (const [key, value] of Object.entries(fields)) if (!(key in bound)) out[key] = value;
    }
    return out;
  };
}
