import type { FastifyInstance } from 'fastify';
import { sendError } from '@msp/errors';

/**
 * Graceful shutdown, the same on the gateway and every service (runServer in server.ts):
 *
 * 1. **Drain** (`beginDrain`): `/ready` answers 503 at once, so that a load balancer or Kubernetes
 *    stops sending new requests; everything else is still served, each answer with
 *    `Connection: close`, so that clients holding kept-alive connections open new ones (elsewhere).
 * 2. After the grace delay (`SHUTDOWN_GRACE_MS`), **close**: the listener closes, in-flight
 *    requests finish, and a request that still arrives on an open connection is answered with a
 *    503 SERVICE_UNAVAILABLE ErrorResponse, Retry-After and `Connection: close`; then the app's
 *    onClose hooks run (consumers, relays, database).
 *
 * Fastify's own answer to a request during close (`return503OnClosing`) was a bare
 * `{"error":"Service Unavailable",...}` 503 without Retry-After; servers of the fleet turn it off
 * (`SHUTDOWN_SERVER_OPTIONS`) and answer through `registerShutdownAnswers` instead.
 */
export const SHUTDOWN_SERVER_OPTIONS = { return503OnClosing: false } as const;

/** Seconds a client is told to wait (Retry-After) before it tries a closing process's route again. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = '5';

/** `SHUTDOWN_GRACE_MS` when not set: long enough for a load balancer to see /ready fail (production), short elsewhere. */
export const DEFAULT_SHUTDOWN_GRACE_MS = { production: 5000, other: 500 } as const;

/** The grace delay can never use up the shutdown timeout (15 s; runServer). */
export const MAX_SHUTDOWN_GRACE_MS = 10_000;

interface ShutdownState {
  /** /ready fails and answers close their connection (from the signal on). */
  draining: boolean;
  /** The listener is closing: new requests get the 503 ErrorResponse. */
  closing: boolean;
}

const states = new WeakMap<FastifyInstance, ShutdownState>();

function stateOf(app: FastifyInstance): ShutdownState {
  let state = states.get(app);
  if (!state) {
    state = { draining: false, closing: false };
    states.set(app, state);
  }
  return state;
}

/** True from `beginDrain` (or the start of `close()`) on: /ready fails. */
export function isDraining(app: FastifyInstance): boolean {
  return stateOf(app).draining;
}

/** Readiness fails from now on; answers carry `Connection: close`. Nothing else changes yet. */
export function beginDrain(app: FastifyInstance): void {
  stateOf(app).draining = true;
}

/**
 * The shutdown answers of one app (see the top of this file). Registered on the root instance
 * before the routes, after the hooks whose headers every answer must carry (CORS on the gateway).
 */
export function registerShutdownAnswers(app: FastifyInstance): void {
  const state = stateOf(app);
  app.addHook('preClose', (done) => {
    state.draining = true;
    state.closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!state.draining) {
      done();
      return;
    }
    // Node ends the connection after this answer: the client's next request opens a new one.
    reply.header('connection', 'close');
    if (!state.closing) {
      done();
      return;
    }
    reply.header('x-request-id', request.id);
    reply.header('retry-after', SHUTDOWN_RETRY_AFTER_SECONDS);
    request.log.info('request refused: shutting down');
    void sendError(request, reply, 503, 'SERVICE_UNAVAILABLE', 'The service is shutting down; try again.');
  });
}

/**
 * `SHUTDOWN_GRACE_MS`: milliseconds between the signal (readiness fails) and the listener's close.
 * Defaults: 5000 with NODE_ENV=production, 500 otherwise; 0 to MAX_SHUTDOWN_GRACE_MS.
 */
export function shutdownGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SHUTDOWN_GRACE_MS;
  if (raw === undefined || raw === '') return env.NODE_ENV === 'production' ? DEFAULT_SHUTDOWN_GRACE_MS.production : DEFAULT_SHUTDOWN_GRACE_MS.other;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value > MAX_SHUTDOWN_GRACE_MS) {
    throw new Error(`SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to ${MAX_SHUTDOWN_GRACE_MS} (got "${raw}").`);
  }
  return value;
}

/**
 * Drain, wait `graceMs`, then close (see the top of this file). Resolves when the app is closed:
 * the listener, the in-flight requests and the onClose hooks.
 */
export async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<void> {
  beginDrain(app);
  if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
  await app.close();
}
