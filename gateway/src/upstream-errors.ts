import type { FastifyReply } from 'fastify';
import { sendError } from '@msp/errors';
import { BodyTooLargeError, findInCauses } from './body-limit.js';

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'FST_REPLY_FROM_SERVICE_UNAVAILABLE',
]);

const TIMEOUT_CODES = new Set([
  'FST_REPLY_FROM_TIMEOUT',
  'FST_REPLY_FROM_GATEWAY_TIMEOUT',
  'FST_REPLY_FROM_HTTP_REQUEST_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export const RETRY_AFTER_SECONDS = '5';

/**
 * Turns a failed upstream call (upstream.ts, and the websocket proxy's reply-from) into the gateway's own ErrorResponse.
 * Unreachable (refused, DNS, connect timeout) → 503 with Retry-After; no answer in time → 504;
 * a body that outgrew its limit while streaming → 413; anything else → 503.
 * Answers the services did send (4xx/5xx ErrorResponses included) never come here: they pass through.
 */
export function onUpstreamError(reply: FastifyReply, error: unknown): void {
  const request = reply.request;
  // The request stream itself is destroyed once fully read (autoDestroy), so look at the socket.
  if (reply.sent || reply.raw.destroyed || request.raw.socket?.destroyed === true) {
    request.log.info({ err: error }, 'upstream call ended after the client went away');
    return;
  }
  if (findInCauses(error, (e) => e instanceof BodyTooLargeError)) {
    // The client may still be sending; closing the connection is the only way to stop it.
    reply.header('connection', 'close');
    sendError(request, reply, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
    return;
  }
  const hasCode = (codes: Set<string>) => findInCauses(error, (e) => typeof e.code === 'string' && codes.has(e.code));
  if (hasCode(UNREACHABLE_CODES)) {
    request.log.warn({ err: error }, 'upstream unreachable');
    reply.header('retry-after', RETRY_AFTER_SECONDS);
    sendError(request, reply, 503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable.');
    return;
  }
  if (hasCode(TIMEOUT_CODES)) {
    request.log.warn({ err: error }, 'upstream timed out');
    sendError(request, reply, 504, 'UPSTREAM_TIMEOUT', 'The service did not answer in time.');
    return;
  }
  request.log.error({ err: error }, 'upstream call failed');
  reply.header('retry-after', RETRY_AFTER_SECONDS);
  sendError(request, reply, 503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable.');
}
