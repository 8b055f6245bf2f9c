import type { EventEnvelope } from './envelope.js';

/**
 * How events meet the request context of the process (set once at boot by packages/runtime, which
 * knows packages/http's AsyncLocalStorage): the correlation id an event written inside a request
 * takes (the request id), and how an event's handling is run so that its logs and its own calls and
 * events carry its correlation id. Without configuration: no correlation id, handlers run as is.
 */
export interface EventContextHooks {
  correlationId(): string | undefined;
  run<T>(envelope: EventEnvelope<unknown>, fn: () => Promise<T>): Promise<T>;
}

let hooks: EventContextHooks = {
  correlationId: () => undefined,
  run: (_envelope, fn) => fn(),
};

export function configureEventContext(next: EventContextHooks): void {
  hooks = next;
}

export function eventContext(): EventContextHooks {
  return hooks;
}
