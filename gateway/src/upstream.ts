import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { onUpstreamError } from './upstream-errors.js';

/** Unreachable hosts must fail fast: a stopped service answers 503 well within 5 s. */
export const CONNECT_TIMEOUT_MS = 3000;

/**
 * The connection pool to the services: JSON bodies are read whole before a connection is taken
 * (proxy.ts), only uploads stream, and a stalled one holds its upstream connection for at most the
 * idle timeout; the pool is large so that a few hundred of those cannot starve other requests.
 */
export function createUpstreamAgent(): Agent {
  return new Agent({ connections: 2048, pipelining: 1, connect: { timeout: CONNECT_TIMEOUT_MS } });
}

/**
 * Answers up to this size (by their Content-Length) are read whole and sent with one write instead
 * of being piped: −7 % and −14 % of the gateway's CPU per request in two paired runs (gateway/README.md
 * "Fifth pass"), and a service that fails mid-answer then gets a clean ErrorResponse instead of a
 * cut-off body. Bigger answers, and answers of unknown length, stream.
 */
const BUFFERED_ANSWER_MAX_BYTES = 64 * 1024;

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never the next one. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

/** A service's address: `origin` (`http://host:port`) and the Host header its requests carry. */
export interface Upstream {
  origin: string;
  host: string;
}

export function upstreamOf(baseUrl: string): Upstream {
  const url = new URL(baseUrl);
  return { origin: url.origin, host: url.host };
}

export interface UpstreamCall {
  upstream: Upstream;
  /** What the service receives (`forwardHeaders`: hop-by-hop headers already dropped); completed here with Host and the body's headers. */
  headers: IncomingHttpHeaders;
  /** A body read whole, a stream (uploads), or none. */
  body: Buffer | Readable | undefined;
  timeoutMs: number;
}

/**
 * Sends the request on to its service with the path unchanged and sends the service's answer back
 * as it is (status, headers but the hop-by-hop ones, body: read whole up to
 * BUFFERED_ANSWER_MAX_BYTES, else streamed). What @fastify/reply-from did for
 * the gateway, without its per-request generality (URL parsing and caching, retries, HTTP/2): about
 * −5 % of the gateway's CPU per request in a paired A/B (gateway/README.md "Fourth pass").
 * A call that fails before an answer becomes the gateway's ErrorResponse (`onUpstreamError`).
 */
export function forward(agent: Dispatcher, request: FastifyRequest, reply: FastifyReply, call: UpstreamCall): FastifyReply {
  const headers = call.headers;
  headers.host = call.upstream.host;
  if (Buffer.isBuffer(call.body)) {
    // The same bytes with the client's Content-Type (RFC 9110 §8.3: octet-stream when it sent none).
    headers['content-length'] = String(call.body.length);
    headers['content-type'] ??= 'application/octet-stream';
  } else if (!call.body) {
    delete headers['content-length'];
  }

  agent.request(
    {
      origin: call.upstream.origin,
      path: request.url,
      method: request.method as Dispatcher.HttpMethod,
      headers: headers as Record<string, string | string[]>,
      body: call.body,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    },
    (err, answer) => {
      if (err) {
        onUpstreamError(reply, err);
        return;
      }
      if (request.raw.aborted || reply.raw.destroyed) {
        // The client went away while the service answered: nothing to send, free the connection.
        answer.body.destroy();
        return;
      }
      try {
        reply.code(answer.statusCode);
      } catch (statusError) {
        // Not a status Fastify can send: the service's answer is unusable (checked before any of its
        // headers is copied, so the error answer carries none of them).
        answer.body.destroy();
        onUpstreamError(reply, statusError);
        return;
      }
      if (buffered(request.method, answer)) {
        answer.body.arrayBuffer().then(
          (bytes) => {
            if (request.raw.aborted || reply.raw.destroyed) return;
            copyAnswerHeaders(request, reply, answer.headers);
            reply.send(Buffer.from(bytes));
          },
          // None of the service's headers is on the reply yet: the ErrorResponse goes out clean.
          (bodyError: unknown) => onUpstreamError(reply, bodyError),
        );
        return;
      }
      copyAnswerHeaders(request, reply, answer.headers);
      reply.send(answer.body);
    },
  );
  return reply;
}

/** Whether an answer is read whole before it is sent: a body of known, small size (not HEAD's, 204's or 304's, which have none). */
function buffered(method: string, answer: Dispatcher.ResponseData): boolean {
  const { statusCode } = answer;
  if (method === 'HEAD' || statusCode < 200 || statusCode === 204 || statusCode === 304) return false;
  const length = answer.headers['content-length'];
  return typeof length === 'string' && /^\d{1,6}$/.test(length) && Number(length) <= BUFFERED_ANSWER_MAX_BYTES;
}

function copyAnswerHeaders(request: FastifyRequest, reply: FastifyReply, headers: IncomingHttpHeaders): void {
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
  }
  // An HTTP/1 connection cannot be reused before its request body was read: the service
  // answered early (e.g. 401 on an upload), so this connection closes after the answer.
  if (!request.raw.complete) reply.header('connection', 'close');
}
