import type { FastifyReply } from 'fastify';
import { sendError, type ErrorCode } from '@msp/errors';
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
 * A connection the service closed or reset before a byte of its answer: what a kept-alive
 * connection looks like when the service closes it (idle timeout, shutdown, restart) just as the
 * gateway sends a request on it (undici: "other side closed", ECONNRESET, EPIPE). A refused
 * connection (ECONNREFUSED) is not one: nothing listens, a retry would be refused too.
 */
const CLOSED_BEFORE_ANSWER_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export function closedBeforeAnswer(error: unknown): boolean {
  return findInCauses(error, (e) => typeof e.code === 'string' && CLOSED_BEFORE_ANSWER_CODES.has(e.code));
}

/** What a failed upstream call is answered with, and how it is logged. */
export interface UpstreamFailure {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
  level: 'warn' | 'error';
  /** The log line's message, or null: nothing to log. */
  log: string | null;
}

/**
 * What a failed upstream call (upstream.ts, and the websocket proxy's reply-from) is answered with.
 * Unreachable (refused, DNS, connect timeout), or the connection closed or reset before an answer
 * (after forward's one retry for a read) → 503 with Retry-After; no answer in time → 504;
 * a body that outgrew its limit while streaming → 413 (and the connection closes: the client may
 * still be sending); anything else → 503. Answers the services did send (4xx/5xx ErrorResponses
 * included) never come here: they pass through.
 */
export function upstreamFailure(error: unknown): UpstreamFailure {
  if (findInCauses(error, (e) => e instanceof BodyTooLargeError)) {
    return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.', headers: { connection: 'close' }, level: 'warn', log: null };
  }
  const hasCode = (codes: Set<string>) => findInCauses(error, (e) => typeof e.code === 'string' && codes.has(e.code));
  if (hasCode(UNREACHABLE_CODES)) return unavailable('warn', 'upstream unreachable');
  if (closedBeforeAnswer(error)) return unavailable('warn', 'upstream closed the connection before its answer was complete');
  if (hasCode(TIMEOUT_CODES)) {
    return { status: 504, code: 'UPSTREAM_TIMEOUT', message: 'The service did not answer in time.', headers: {}, level: 'warn', log: 'upstream timed out' };
  }
  return unavailable('error', 'upstream call failed');
}

/** 503 SERVICE_UNAVAILABLE with Retry-After. */
function unavailable(level: UpstreamFailure['level'], log: string): UpstreamFailure {
  return {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable.',
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
    level,
    log,
  };
}

/** Answers a failed upstream call with the gateway's own ErrorResponse (`upstreamFailure`). */
export function onUpstreamError(reply: FastifyReply, error: unknown): void {
  const request = reply.request;
  // The request stream itself is destroyed once fully read (autoDestroy), so look at the socket.
  if (reply.sent || reply.raw.destroyed || request.raw.socket?.destroyed === true) {
    request.log.info({ err: error }, 'upstream call ended after the client went away');
    return;
  }
  const failure = upstreamFailure(error);
  if (failure.log) request.log[failure.level]({ err: error }, failure.log);
  reply.headers(failure.headers);
  sendError(request, reply, failure.status, failure.code, failure.message);
}
