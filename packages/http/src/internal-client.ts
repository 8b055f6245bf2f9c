import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { InternalOperation } from '@msp/contracts';
import { Counter, Histogram } from 'prom-client';
import { internalCallHeaders } from './internal-auth.js';
import { currentRequestContext } from './request-context.js';

/**
 * The one HTTP client for service-to-service calls (`/internal/*` routes and other services'
 * public reads). Every call:
 * - reuses keep-alive connections from one pool per process (undici Agent), never a socket per call;
 * - carries the service credential (`X-Service-Token`) and the current request id (`X-Request-Id`,
 *   from the request context that createHttpApp sets), so one id follows a request across services;
 * - ends within its timeout (headers and body);
 * - is counted in `internal_calls_total{target, outcome}` and timed in
 *   `internal_call_duration_seconds{target}`, so an operator sees degraded calls.
 *
 * Answers are returned as parsed JSON without validation: they come from our own services, which
 * serialise them through their response schemas; a caller that must not trust the shape (a
 * decision that fails closed) validates it itself.
 */

export type InternalCallOutcome = 'ok' | 'client_error' | 'server_error' | 'timeout' | 'unreachable';

/** The call did not produce a 2xx answer: `status` is set when the target answered. */
export class InternalCallError extends Error {
  constructor(
    readonly target: string,
    readonly outcome: Exclude<InternalCallOutcome, 'ok'>,
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'InternalCallError';
  }
}

const calls = new Counter({
  name: 'internal_calls_total',
  help: 'Calls to other services by target and outcome (ok, client_error, server_error, timeout, unreachable)',
  labelNames: ['target', 'outcome'],
});
const callDuration = new Histogram({
  name: 'internal_call_duration_seconds',
  help: 'Duration of calls to other services',
  labelNames: ['target'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

let sharedAgent: Agent | undefined;
/** One keep-alive pool for the process; closed by `closeInternalClients` at shutdown. */
function agent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 30_000, connections: 128, pipelining: 1 });
  return sharedAgent;
}

export async function closeInternalClients(): Promise<void> {
  const current = sharedAgent;
  sharedAgent = undefined;
  await current?.close();
}

export interface InternalClientOptions {
  /** The called service's name, for metrics and messages (`social`, `catalog`, ...). */
  target: string;
  baseUrl: string;
  /** Whole-call budget: connection, headers and body. */
  timeoutMs: number;
  /** A dispatcher of one's own (tests); default the process-wide keep-alive pool. */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  /** Statuses that are answers, not failures (e.g. 404 for "not there"): returned as `{ status }`. */
  acceptStatuses?: readonly number[];
  timeoutMs?: number;
}

/** What `send` puts in the path (`:name` → `params.name`) and the body of a declared operation. */
export interface SendInput<Op extends InternalOperation> {
  params?: Record<string, string | number>;
  body?: Op['body'] extends z.ZodType ? z.input<Op['body']> : never;
}

export interface SendOptions extends CallOptions {
  /** Check the answer against the operation's response schema (a caller whose decision fails closed). */
  validate?: boolean;
}

export interface InternalAnswer<T> {
  status: number;
  body: T | undefined;
}

export class InternalClient {
  readonly target: string;
  private readonly origin: string;
  private readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher | undefined;

  constructor(options: InternalClientOptions) {
    this.target = options.target;
    this.origin = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.dispatcher = options.dispatcher;
  }

  /** POST a JSON body; the parsed JSON answer. Throws InternalCallError unless 2xx. */
  async post<T>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    const answer = await this.call<T>('POST', path, body, options);
    return answer.body as T;
  }

  /** GET; the parsed JSON answer. Throws InternalCallError unless 2xx. */
  async get<T>(path: string, options: CallOptions = {}): Promise<T> {
    const answer = await this.call<T>('GET', path, undefined, options);
    return answer.body as T;
  }

  /**
   * One declared operation (INTERNAL_OPERATIONS in @msp/contracts): method and path from the
   * declaration, the path's parameters from `input.params`. The answer is typed by the declaration's
   * response schema and, with `validate`, checked against it (a mismatch is a `server_error`).
   */
  async send<Op extends InternalOperation>(operation: Op, input: SendInput<Op>, options: SendOptions = {}): Promise<InternalAnswer<z.output<Op['response']>>> {
    if (operation.owner !== this.target) throw new Error(`${operation.path} is answered by ${operation.owner}, not ${this.target}`);
    const path = operation.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = input.params?.[name];
      if (value === undefined) throw new Error(`${operation.path} needs the parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const answer = await this.call<unknown>(operation.method, path, input.body, options);
    if (!options.validate || answer.status < 200 || answer.status >= 300) return answer as InternalAnswer<z.output<Op['response']>>;
    const parsed = operation.response.safeParse(answer.body);
    if (!parsed.success) {
      throw new InternalCallError(this.target, 'server_error', `${this.target} sent an answer that does not match ${operation.path}`, answer.status);
    }
    return { status: answer.status, body: parsed.data as z.output<Op['response']> };
  }

  /** Any method; answers with a status in `acceptStatuses` come back instead of throwing. */
  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, options: CallOptions = {}): Promise<InternalAnswer<T>> {
    const started = performance.now();
    const timeout = options.timeoutMs ?? this.timeoutMs;
    const headers: Record<string, string> = { accept: 'application/json', ...internalCallHeaders() };
    const requestId = currentRequestContext()?.requestId;
    if (requestId) headers['x-request-id'] = requestId;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    let outcome: InternalCallOutcome = 'ok';
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(`${this.origin}${path}`, {
          method,
          headers,
          body: payload,
          dispatcher: this.dispatcher ?? agent(),
          signal: AbortSignal.timeout(timeout),
          headersTimeout: timeout,
          bodyTimeout: timeout,
        });
      } catch (err) {
        outcome = isTimeout(err) ? 'timeout' : 'unreachable';
        throw new InternalCallError(
          this.target,
          outcome,
          `${this.target} ${outcome === 'timeout' ? 'did not answer in time' : 'is unreachable'} (${method} ${path})`,
          undefined,
          { cause: err },
        );
      }
      const accepted = options.acceptStatuses?.includes(res.statusCode) ?? false;
      if (res.statusCode < 200 || (res.statusCode >= 300 && !accepted)) {
        await res.body.dump().catch(() => undefined); // the connection goes back to the pool; the body is not needed
        outcome = res.statusCode >= 500 ? 'server_error' : 'client_error';
        throw new InternalCallError(this.target, outcome, `${this.target} answered ${res.statusCode} (${method} ${path})`, res.statusCode);
      }
      let parsed: T | undefined;
      try {
        const text = await res.body.text();
        parsed = text.length === 0 ? undefined : (JSON.parse(text) as T);
      } catch (err) {
        outcome = isTimeout(err) ? 'timeout' : 'server_error';
        throw new InternalCallError(this.target, outcome, `${this.target} sent an unreadable answer (${method} ${path})`, res.statusCode, { cause: err });
      }
      return { status: res.statusCode, body: parsed };
    } finally {
      calls.inc({ target: this.target, outcome });
      callDuration.observe({ target: this.target }, (performance.now() - started) / 1000);
    }
  }
}

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: string } | null;
  return (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}
