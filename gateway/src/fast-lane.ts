import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { RouteContract } from '@msp/contracts';
import { buildErrorResponse, renderError, type ErrorCode } from '@msp/errors';
import { observeHttpRequest, requestIdFrom } from '@msp/http';
import { endRequestSpan, startRequestSpan, type RequestSpan } from '@msp/telemetry';
import { verifyCaller, type AuthLog, type AuthResult, type Caller } from './auth.js';
import { admitCaller, gateLimits, passGate, type GateLimits } from './gate.js';
import { appRateLimitHeaders } from './rate-limit.js';
import { forwardHeaders, PROXY_ROUTE_URL, type ForwardedRequest, type ProxyOptions } from './proxy.js';
import { forward, RETRY_LOG_MESSAGE, type AnswerSink } from './upstream.js';
import { CLIENT_CLOSED_STATUS } from './request-log.js';
import { upstreamFailure } from './upstream-errors.js';
import { CORS_EXPOSED_HEADERS } from './security-headers.js';

/**
 * The fast lane: a plain read of a contract operation (GET or HEAD without a body) is answered
 * straight from Node's `request` event, without Fastify's request, reply, hook chain and
 * serialisation around it. It does exactly what the proxy route does for such a request (proxy.ts:
 * the same checks in the same order, through the same functions: `verifyCaller`, `passGate`,
 * `admitCaller`, `forwardHeaders`, `forward`, `upstreamFailure`) and answers with the same headers
 * (security headers, CORS, X-Request-Id), the same ErrorResponses, the same log line, metric and
 * span. Everything else (bodies, uploads, percent-encoded or over-long URLs, unknown routes, 404,
 * 405, docs, health, websockets, a closing server) goes through Fastify as before;
 * `gateway/test/fast-lane.test.ts` compares the two answer for answer. FAST_LANE=false turns it off.
 *
 * Why: the gateway's own CPU per request was what kept authenticated routes under 0.9× of direct
 * throughput when the gateway shares its cores with the services (docs/benchmarks/gateway.md "Stage 6").
 */
export interface FastLaneOptions extends ProxyOptions {
  /** The precomputed security headers (security-headers.ts). */
  securityHeaders: ReadonlyArray<readonly [string, string]>;
  /** The gateway's logger; the lane's lines carry the request and trace ids as Fastify's do. */
  log: FastifyBaseLogger;
  /** True once the gateway is shutting down: Fastify then answers (Connection: close; a 503 ErrorResponse once the listener closes). */
  closing(): boolean;
}

/** Takes the request (true) or leaves it to Fastify (false, nothing done yet). */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * URLs the lane takes: no percent-encoding (checkPath/checkUrl have nothing to refuse), nothing
 * a URL could not carry as it is. At most 500 characters: Fastify's router refuses a longer
 * wildcard (414), and the lane must not answer what Fastify would not.
 */
const LANE_URL = /^\/api\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*$/;
const LANE_URL_MAX_LENGTH = 500;

const JSON_TYPE = 'application/json; charset=utf-8';

/** What every lane request of one gateway shares. */
interface Lane extends FastLaneOptions {
  /** Proxy trust (Fastify's `trustProxy`), null when no proxy is trusted. */
  trust: ((address: string, index: number) => boolean) | null;
  /** Headers every answer starts from: security headers and the fixed CORS ones. */
  baseHeaders: OutgoingHttpHeaders;
  corsOrigins: ReadonlySet<string>;
  anyOrigin: boolean;
  limits: GateLimits;
}

export function createFastLane(options: FastLaneOptions): FastLane {
  const { config, routeTable } = options;
  const trustSetting = config.TRUST_PROXY;
  const baseHeaders: OutgoingHttpHeaders = {};
  for (const [name, value] of options.securityHeaders) baseHeaders[name] = value;
  // What @fastify/cors writes on a request that is not a preflight (origin list: Vary always).
  baseHeaders.vary = 'Origin';
  baseHeaders['access-control-allow-credentials'] = 'true';
  baseHeaders['access-control-expose-headers'] = CORS_EXPOSED_HEADERS.join(', ');
  const lane: Lane = {
    ...options,
    trust: trustSetting === false ? null : trustSetting === true ? () => true : proxyAddr.compile(trustSetting),
    baseHeaders,
    corsOrigins: new Set(config.CORS_ORIGINS),
    anyOrigin: config.CORS_ORIGINS.includes('*'),
    limits: gateLimits(config),
  };
  return (req, res) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url ?? '';
    if (url.length > LANE_URL_MAX_LENGTH || !LANE_URL.test(url)) return false;
    const headers = req.headers;
    if (
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers['content-type'] !== undefined ||
      headers.upgrade !== undefined
    ) {
      return false;
    }
    if (options.closing()) return false;
    const match = routeTable.match(method, url);
    if (match.kind !== 'route') return false;
    new LaneRequest(lane, req, res, method, url, match.route).run();
    return true;
  };
}

/** `verifyCaller`'s logger: the request's, made when a line is written. */
class LazyLog implements AuthLog {
  constructor(private readonly request: { readonly log: FastifyBaseLogger }) {}

  info(fields: object, message: string): void {
    this.request.log.info(fields, message);
  }

  error(fields: object, message: string): void {
    this.request.log.error(fields, message);
  }
}

/** One request in the lane: what Fastify's request and reply held for the proxy route. */
class LaneRequest implements ForwardedRequest, AnswerSink {
  readonly id: string;
  readonly traceSpan: RequestSpan;
  caller: Caller | null = null;
  private readonly startedAt = process.hrtime.bigint();
  private clientAddress: string | undefined;
  private requestLog: FastifyBaseLogger | null = null;
  private statusCode = 0;
  /** An app token's RateLimit headers, on every answer (as the proxy route sets them on the reply). */
  private quotaHeaders: Record<string, string> | null = null;

  constructor(
    private readonly lane: Lane,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly method: string,
    readonly url: string,
    private readonly route: RouteContract,
  ) {
    this.id = requestIdFrom(req);
    this.traceSpan = startRequestSpan(method, url.split('?', 1)[0] ?? url, req.headers);
    res.once('close', () => this.done());
  }

  /** Fastify's `request.ip`: the socket's address, or the last untrusted one of X-Forwarded-For. */
  get ip(): string {
    if (this.clientAddress === undefined) {
      const trust = this.lane.trust;
      if (trust) {
        const all = proxyAddr.all(this.req, trust);
        this.clientAddress = all[all.length - 1] ?? '';
      } else {
        this.clientAddress = this.req.socket.remoteAddress ?? '';
      }
    }
    return this.clientAddress;
  }

  /** Fastify's `request.protocol`. */
  get protocol(): string {
    const forwarded = this.trustedForwarded('x-forwarded-proto');
    if (forwarded !== undefined) return forwarded;
    return (this.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  }

  /** Fastify's `request.host`. */
  get host(): string {
    return this.trustedForwarded('x-forwarded-host') ?? this.req.headers.host ?? '';
  }

  /** A request's logger as Fastify makes it: the request and trace ids bound (made only when a line is written). */
  get log(): FastifyBaseLogger {
    this.requestLog ??= this.lane.log.child({ requestId: this.id, ...this.traceSpan.ids });
    return this.requestLog;
  }

  run(): void {
    this.check().catch((err: unknown) => {
      // What Fastify's error handler does with a hook that throws (@msp/errors errorHandler).
      const rendered = renderError(err);
      if (rendered.status >= 500) this.log.error({ err }, 'request failed');
      else this.log.info({ code: rendered.code, status: rendered.status }, 'request rejected');
      this.error(rendered.status, rendered.code, rendered.message, rendered.headers);
    });
  }

  /** The proxy's onRequest hook (proxy.ts), for a request that already matched a route and has no body. */
  private async check(): Promise<void> {
    const { lane, route } = this;
    // The logger itself only if a line is written (a pino child per request was ~1.5 % of the lane's
    // CPU in a perf profile).
    const verified: AuthResult = await verifyCaller(this.req.headers.authorization, route.auth, lane.verifyToken, new LazyLog(this));
    const caller = verified.ok ? verified.caller : null;
    const answer = await passGate(lane.redis, this.ip, caller, lane.limits, route.id);
    if (caller?.app) this.quotaHeaders = appRateLimitHeaders(lane.limits.appQuota, answer?.caller?.quota);
    if (answer === null) {
      this.log.warn('per-client rate limit skipped: Redis unavailable');
    } else if (!answer.client.allowed) {
      return this.error(429, 'RATE_LIMITED', 'Too many requests; try again later.', { 'retry-after': String(answer.client.retryAfterSeconds) });
    }
    const result = verified.ok && verified.caller ? admitCaller(route, verified.caller, answer) : verified;
    if (!result.ok) return this.error(result.status, result.code, result.message, result.headers);
    this.caller = result.caller;
    if (this.gone()) return;
    forward(
      lane.pool,
      this.method,
      this.url,
      {
        upstream: lane.upstreams[route.owner],
        headers: forwardHeaders(this, this.req.headers, lane.keys[route.owner]),
        body: undefined,
        timeoutMs: lane.config.UPSTREAM_TIMEOUT_MS,
      },
      this,
    );
  }

  gone(): boolean {
    return this.res.destroyed || this.res.headersSent;
  }

  fail(error: unknown): void {
    if (this.gone()) {
      this.log.info({ err: error }, 'upstream call ended after the client went away');
      return;
    }
    const failure = upstreamFailure(error);
    if (failure.log) this.log[failure.level]({ err: error }, failure.log);
    this.error(failure.status, failure.code, failure.message, failure.headers);
  }

  retrying(error: unknown): void {
    this.log.warn({ err: error }, RETRY_LOG_MESSAGE);
  }

  send(statusCode: number, headers: IncomingHttpHeaders, body: Buffer | Readable): void {
    const out = this.answerHeaders();
    // The service's headers win, as on the Fastify route (its Vary with Origin kept: upstream.ts).
    Object.assign(out, headers);
    try {
      this.res.writeHead(statusCode, out);
    } catch (err) {
      // A header Node will not write (undici already refuses most): nothing was sent yet.
      if (!Buffer.isBuffer(body)) body.destroy();
      this.fail(err);
      return;
    }
    this.statusCode = statusCode;
    if (Buffer.isBuffer(body)) {
      this.res.end(body);
    } else if (this.method === 'HEAD' || statusCode < 200 || statusCode === 204 || statusCode === 304) {
      body.destroy();
      this.res.end();
    } else {
      pipeline(body, this.res, () => undefined);
    }
  }

  /** The gateway's own ErrorResponse (@msp/errors `sendError`). */
  private error(status: number, code: ErrorCode, message: string, extra?: Record<string, string>): void {
    if (this.gone()) return;
    const body = JSON.stringify(buildErrorResponse({ status, code, message, path: this.url, requestId: this.id }));
    const out = this.answerHeaders();
    if (extra) Object.assign(out, extra);
    out['content-type'] = JSON_TYPE;
    out['content-length'] = String(Buffer.byteLength(body));
    this.statusCode = status;
    this.res.writeHead(status, out);
    this.res.end(this.method === 'HEAD' ? undefined : body);
  }

  private answerHeaders(): OutgoingHttpHeaders {
    const { lane } = this;
    const out: OutgoingHttpHeaders = { ...lane.baseHeaders };
    const origin = this.req.headers.origin;
    if (lane.anyOrigin) out['access-control-allow-origin'] = '*';
    else if (origin !== undefined && lane.corsOrigins.has(origin)) out['access-control-allow-origin'] = origin;
    out['x-request-id'] = this.id;
    if (this.quotaHeaders) Object.assign(out, this.quotaHeaders);
    return out;
  }

  private trustedForwarded(name: 'x-forwarded-proto' | 'x-forwarded-host'): string | undefined {
    const value = this.req.headers[name];
    const trust = this.lane.trust;
    if (typeof value !== 'string' || value === '' || !trust || !trust(this.req.socket.remoteAddress ?? '', 0)) return undefined;
    const last = value.lastIndexOf(',');
    return last === -1 ? value.trim() : value.slice(last + 1).trim();
  }

  /**
   * Fastify's onResponse hooks (request log, metrics, span) or, for a connection closed before the
   * answer was complete (the client gave up, or a streamed answer broke off), the request log's
   * "request aborted" line (request-log.ts) and the span's 499.
   */
  private done(): void {
    const route = this.route;
    const spanRoute = { method: route.method, path: `/api${route.path}` };
    const finished = this.res.writableFinished;
    const statusCode = finished || this.res.headersSent ? this.statusCode : CLIENT_CLOSED_STATUS;
    const elapsedMs = Number(process.hrtime.bigint() - this.startedAt) / 1e6;
    this.lane.log.info(
      {
        requestId: this.id,
        ...this.traceSpan.ids,
        method: this.method,
        url: this.url,
        statusCode,
        responseTime: Math.round(elapsedMs * 100) / 100,
        operation: route.id,
        userId: this.caller?.userId,
        ip: this.ip,
      },
      finished ? 'request completed' : 'request aborted',
    );
    if (!finished) {
      endRequestSpan(this.traceSpan, CLIENT_CLOSED_STATUS, spanRoute);
      return;
    }
    observeHttpRequest('gateway', this.method, PROXY_ROUTE_URL, this.statusCode, elapsedMs / 1000);
    endRequestSpan(this.traceSpan, this.statusCode, spanRoute);
  }
}
