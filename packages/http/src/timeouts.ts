import type { FastifyRequest } from 'fastify';

/**
 * Timeouts for slow or stalled clients, the same on the gateway and every service (figures in the
 * gateway README):
 * - request headers must arrive within 15 s (slowloris; Node checks every few seconds);
 * - while a request body is being received, a socket with no byte for BODY_IDLE_TIMEOUT_MS (30 s)
 *   is closed: a body that stops mid-way ends there whatever its size, while a slow but moving
 *   upload (a few KB/s) goes on. Once the body is in, the timer is off: a handler may think for as
 *   long as it needs (TRK-1 waits up to a minute for processing);
 * - a whole request (headers and body) may take at most 1 h: a 211 MB upload at 60 KB/s;
 * - keep-alive sockets idle between requests close after 72 s (above the usual 60 s of load balancers).
 */
export const BODY_IDLE_TIMEOUT_MS = 30_000;

export const SERVER_TIMEOUTS = {
  requestTimeout: 3_600_000,
  keepAliveTimeout: 72_000,
  http: { headersTimeout: 15_000 },
} as const;

function expectsBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}

/**
 * Arms the socket's idle timer while the request body arrives (Node's server closes an idle socket
 * that has a timeout and no other `timeout` listener) and disarms it once the body is complete.
 */
export function guardBodyIdle(request: FastifyRequest, idleMs = BODY_IDLE_TIMEOUT_MS): void {
  const socket = request.raw.socket;
  if (!socket || typeof socket.setTimeout !== 'function' || !expectsBody(request) || request.raw.complete) return;
  socket.setTimeout(idleMs);
  const disarm = () => {
    if (!socket.destroyed) socket.setTimeout(0);
  };
  request.raw.once('end', disarm);
  request.raw.once('close', disarm);
}
