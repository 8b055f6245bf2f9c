import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the code handling one request (or one event) may need without passing it down every call:
 * the request id that outgoing internal calls forward, so one id follows a request across services.
 */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request or event being handled, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/** Runs `fn` (and everything it awaits) with `context` as the current request context. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}
