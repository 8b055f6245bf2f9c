import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { closedBeforeAnswer, onUpstreamError } from './upstream-errors.js';

/** Unreachable hosts must fail fast: a stopped service answers 503 well within 5 s. */
export const CONNECT_TIMEOUT_MS = 3000;

/**
 * The connections to the services. `agent` keeps connections alive (the normal path): the pool is
 * large so that a few hundred stalled uploads (each holds its upstream connection for at most the
 * body idle timeout; JSON bodies are read whole before a connection is taken, proxy.ts) cannot
 * starve other requests. `fresh` opens a new connection per request and keeps none (undici's
 * `pipelining: 0`): the one retry of a read whose kept-alive connection the service closed as the
 * request went out (`forward`) must not land on another connection the service is closing.
 */
export interface UpstreamPool {
  readonly agent: Dispatcher;
  readonly fresh: Dispatcher;
}

export function createUpstreamPool(): UpstreamPool & { destroy(): Promise<void> } {
  const connect = { timeout: CONNECT_TIMEOUT_MS };
  const agent = new Agent({ connections: 2048, pipelining: 1, connect });
  const fresh = new Agent({ pipelining: 0, connect });
  return {
    agent,
    fresh,
    async destroy() {
      await Promise.all([agent.destroy(), fresh.destroy()]);
    },
  };
}

/**
 * Answers up to this size (by their Content-Length) are read whole and sent with one write instead
 * of being piped: −7 % and −14 % of the gateway's CPU per request in two paired runs (docs/benchmarks/gateway.md
 * "Stage 5"), and a service that fails mid-answer then gets a clean ErrorResponse instead of a
 * cut-off body. Bigger answers, and answers of unknown length, stream.
 */
const BUFFERED_ANSWER_MAX_BYTES = 64 * 1024;

/** The log line of a read sent again on a new connection (`forward`). */
export const RETRY_LOG_MESSAGE = 'upstream connection closed before an answer; retrying once on a new connection';

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
 * Where a forwarded request's answer goes: the Fastify reply (`ReplySink`), or the fast lane's
 * response (fast-lane.ts).
 */
export interface AnswerSink {
  /** True when the client went away: nothing is sent, the service's answer is dropped. */
  gone(): boolean;
  /** The call failed before an answer was sent: the gateway's own ErrorResponse (`upstreamFailure`). */
  fail(error: unknown): void;
  /** The call is sent again on a new connection after `error` (logged, no answer yet). */
  retrying(error: unknown): void;
  /** The service's answer: status, headers without the hop-by-hop ones, body read whole or as the stream. */
  send(statusCode: number, headers: IncomingHttpHeaders, body: Buffer | Readable): void;
}

/**
 * Sends the request on to its service with the path unchanged and hands the service's answer to
 * the sink as it is (status, headers but the hop-by-hop ones, body: read whole up to
 * BUFFERED_ANSWER_MAX_BYTES, else the stream). What @fastify/reply-from did for the gateway,
 * without its per-request generality (URL parsing and caching, HTTP/2): about −5 % of the
 * gateway's CPU per request in a paired A/B (docs/benchmarks/gateway.md "Stage 4").
 * A GET or HEAD without a body whose connection was closed before any answer (`closedBeforeAnswer`)
 * is sent once more, on a new connection (`pool.fresh`); any other failure, and a second one, goes
 * to `sink.fail` at once.
 */
export function forward(pool: UpstreamPool, method: string, url: string, call: UpstreamCall, sink: AnswerSink): void {
  const headers = call.headers;
  headers.host = call.upstream.host;
  if (Buffer.isBuffer(call.body)) {
    // The same bytes with the client's Content-Type (RFC 9110 §8.3: octet-stream when it sent none).
    headers['content-length'] = String(call.body.length);
    headers['content-type'] ??= 'application/octet-stream';
  } else if (!call.body) {
    delete headers['content-length'];
  }
  send(pool.agent, (method === 'GET' || method === 'HEAD') && call.body === undefined ? pool.fresh : null);

  function send(dispatcher: Dispatcher, retryOn: Dispatcher | null): void {
    dispatcher.request(
      {
        origin: call.upstream.origin,
        path: url,
        method: method as Dispatcher.HttpMethod,
        headers: headers as Record<string, string | string[]>,
        body: call.body,
        headersTimeout: call.timeoutMs,
        bodyTimeout: call.timeoutMs,
      },
      (err, answer) => {
        if (err) {
          if (retryOn && closedBeforeAnswer(err) && !sink.gone()) {
            sink.retrying(err);
            send(retryOn, null);
            return;
          }
          sink.fail(err);
          return;
        }
        receive(answer);
      },
    );
  }

  function receive(answer: Dispatcher.ResponseData): void {
    if (sink.gone()) {
      // The client went away while the service answered: nothing to send, free the connection.
      answer.body.destroy();
      return;
    }
    const { statusCode } = answer;
    if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
      // Not a status HTTP can send on: the service's answer is unusable (none of its headers is
      // passed on).
      answer.body.destroy();
      sink.fail(new Error(`The service answered with status ${statusCode}.`));
      return;
    }
    if (buffered(method, answer)) {
      answer.body.arrayBuffer().then(
        (bytes) => {
          if (!sink.gone()) sink.send(statusCode, answerHeaders(answer.headers), Buffer.from(bytes));
        },
        // None of the service's headers was sent yet: the ErrorResponse goes out clean.
        (bodyError: unknown) => sink.fail(bodyError),
      );
      return;
    }
    sink.send(statusCode, answerHeaders(answer.headers), answer.body);
  }
}

/** Whether an answer is read whole before it is sent: a body of known, small size (not HEAD's, 204's or 304's, which have none). */
function buffered(method: string, answer: Dispatcher.ResponseData): boolean {
  const { statusCode } = answer;
  if (method === 'HEAD' || statusCode < 200 || statusCode === 204 || statusCode === 304) return false;
  const length = answer.headers['content-length'];
  return typeof length === 'string' && /^\d{1,6}$/.test(length) && Number(length) <= BUFFERED_ANSWER_MAX_BYTES;
}

/**
 * The service's headers without the hop-by-hop ones. A Vary of the service's keeps the gateway's
 * `Origin` in it (the CORS headers differ by Origin; a cache must not serve one origin's answer to
 * another).
 */
function answerHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  if (out.vary !== undefined) out.vary = varyWithOrigin(out.vary);
  return out;
}

function varyWithOrigin(vary: string | string[]): string {
  const value = Array.isArray(vary) ? vary.join(', ') : vary;
  const names = value.split(',').map((name) => name.trim().toLowerCase());
  return names.includes('*') || names.includes('origin') ? value : value.trim() === '' ? 'Origin' : `${value}, Origin`;
}

/** The answer of a request that went through Fastify (the proxy route). */
export class ReplySink implements AnswerSink {
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  gone(): boolean {
    return this.request.raw.aborted || this.reply.raw.destroyed;
  }

  fail(error: unknown): void {
    onUpstreamError(this.reply, error);
  }

  retrying(error: unknown): void {
    this.request.log.warn({ err: error }, RETRY_LOG_MESSAGE);
  }

  send(statusCode: number, headers: IncomingHttpHeaders, body: Buffer | Readable): void {
    const reply = this.reply;
    reply.code(statusCode);
    reply.headers(headers);
    // An HTTP/1 connection cannot be reused before its request body was read: the service
    // answered early (e.g. 401 on an upload), so this connection closes after the answer.
    if (!this.request.raw.complete) reply.header('connection', 'close');
    reply.send(body);
  }
}
