import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { backoffDelayMs, DurableWorker } from '@msp/events';
import type { Logger } from '@msp/runtime';
import { resolveTarget, WebhookTargetError, type WebhookUrlPolicy } from './webhooks.policy.js';
import { signWebhook } from './webhooks.signature.js';
import type { ClaimedDelivery, DeliveredOutcome, FailedOutcome as RecordedFailure, WebhooksRepository } from './webhooks.repository.js';
import { WEBHOOK_CHANNEL } from './webhooks.repository.js';

export interface DispatcherOptions {
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryWindowMs: number;
  timeoutMs: number;
  concurrency: number;
  /** Connections kept open per receiving origin (host and port), at most. */
  connectionsPerOrigin: number;
  pollMs: number;
  logDays: number;
  databaseUrl: string;
  policy: WebhookUrlPolicy;
}

export interface SendResult {
  /** null: no HTTP answer (DNS, refused address, connection error, timeout). */
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * Connections are kept alive and reused, at most `connectionsPerOrigin` per host and port (the
 * agents' `maxSockets`; more requests to one origin wait for a free connection). Each new
 * connection is opened to the checked address (the request's `lookup`).
 */
const agents = new Map<number, { http: http.Agent; https: https.Agent }>();
function agentsFor(connectionsPerOrigin: number) {
  let pair = agents.get(connectionsPerOrigin);
  if (!pair) {
    const options = { keepAlive: true, maxSockets: connectionsPerOrigin, maxFreeSockets: connectionsPerOrigin, timeout: 30_000 };
    pair = { http: new http.Agent(options), https: new https.Agent(options) };
    agents.set(connectionsPerOrigin, pair);
  }
  return pair;
}

/**
 * One POST to the endpoint. The host is resolved and checked here (SSRF policy) and the connection
 * goes to that very address (`lookup` pinned), with the URL's host name kept for TLS and `Host`.
 * No redirects are followed; the response body is read and dropped (at most 64 KiB kept in flight).
 */
export async function sendWebhook(
  url: string,
  body: string,
  secret: string,
  options: { timeoutMs: number; policy: WebhookUrlPolicy; connectionsPerOrigin?: number; resolve?: Parameters<typeof resolveTarget>[2] },
): Promise<SendResult> {
  const started = performance.now();
  /** When the request got its connection: `latencyMs` is the receiver's time, not the wait for a connection. */
  let sentAt = started;
  const elapsed = () => Math.round(performance.now() - sentAt);
  let target;
  try {
    target = await resolveTarget(url, options.policy, options.resolve);
  } catch (err) {
    return { status: null, latencyMs: elapsed(), error: err instanceof WebhookTargetError ? err.message : 'url not resolvable' };
  }
  const pinned: LookupFunction = (_host, opts, cb) => {
    if (opts.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const payload = Buffer.from(body);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    'user-agent': 'msp-webhooks/1',
    'webhook-signature': signWebhook(secret, body, Math.floor(Date.now() / 1000)),
  };
  const secure = target.url.protocol === 'https:';
  const mod = secure ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = mod.request(
      target.url,
      { method: 'POST', headers, lookup: pinned, agent: agentsFor(options.connectionsPerOrigin ?? 16)[secure ? 'https' : 'http'], timeout: options.timeoutMs },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => done({ status: res.statusCode ?? 0, latencyMs: elapsed(), error: null }));
        res.on('error', () => done({ status: res.statusCode ?? 0, latencyMs: elapsed(), error: null }));
      },
    );
    // The timeout runs from the moment the request has a connection (not while it waits for one of
    // the origin's connections), so deliveries queued behind a slow receiver are not failed unsent.
    let timer: NodeJS.Timeout | undefined;
    req.once('socket', () => {
      sentAt = performance.now();
      timer = setTimeout(() => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    });
    req.on('timeout', () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    req.on('error', (err) => done({ status: null, latencyMs: elapsed(), error: err.message }));
    req.on('close', () => clearTimeout(timer));
    req.end(payload);
  });
}

/** What an answer means: delivered, endpoint gone (410), retried (5xx, 408, 429, no answer), or failed for good (other 4xx, 3xx). */
export function classify(status: number | null): 'delivered' | 'gone' | 'retry' | 'fail' {
  if (status === null) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  if (status >= 500 || status === 408 || status === 429) return 'retry';
  return 'fail';
}

/** When the next attempt of a delivery goes, or null when its retry window (from its creation) is over. */
export function nextAttempt(
  attempts: number,
  createdAt: Date,
  now: number,
  o: Pick<DispatcherOptions, 'backoffBaseMs' | 'backoffMaxMs' | 'retryWindowMs'>,
): Date | null {
  const at = now + backoffDelayMs(attempts, { baseMs: o.backoffBaseMs, maxMs: o.backoffMaxMs, jitter: 0.2 });
  return at - createdAt.getTime() > o.retryWindowMs ? null : new Date(at);
}

const LEASE_SECONDS = 60;

/** A failed attempt, and whether its retry window is over (it gave up). */
type FailedOutcome = RecordedFailure & { exhausted: boolean };

/**
 * The webhook dispatcher: a `DurableWorker` that claims due deliveries in batches (the oldest
 * pending one per endpoint and resource, so each claimed row can go at once) and sends up to
 * `concurrency` at once, at most `connectionsPerOrigin` per receiver; woken by the NOTIFY of the
 * commit that queued them. Outcomes are recorded together (one transaction for what finished
 * meanwhile); recording a delivery's outcome is what makes the next one of its resource claimable.
 * Retries back off exponentially for the retry window; an endpoint failing for the whole window is
 * disabled; 410 removes it. Once an hour it drops log entries older than `logDays`.
 */
export class WebhookDispatcher {
  private readonly worker: DurableWorker;
  private readonly inFlight = new Set<string>();
  private readonly tasks = new Set<Promise<void>>();
  /** Outcomes waiting to be recorded together (the time of one transaction at most). */
  private delivered: DeliveredOutcome[] = [];
  private failed: FailedOutcome[] = [];
  private flushing: Promise<void> | null = null;
  private lastPurge = 0;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
  ) {
    this.worker = new DurableWorker({
      name: 'notification-webhooks',
      logger,
      pollMs: options.pollMs,
      notify: { databaseUrl: options.databaseUrl, channel: WEBHOOK_CHANNEL },
      heartbeat: { everyMs: (LEASE_SECONDS * 1000) / 3, beat: () => this.repo.renew([...this.inFlight], LEASE_SECONDS) },
      lag: () => this.repo.lagSeconds(),
      batch: () => this.batch(),
    });
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /** No new claims; the deliveries in flight finish (each within the request timeout). */
  async stop(): Promise<void> {
    await this.worker.stop();
    await Promise.allSettled([...this.tasks]);
    while (this.flushing || this.delivered.length + this.failed.length > 0) await this.flushOutcomes();
  }

  wake(): void {
    this.worker.wake();
  }

  /**
   * Records the outcomes gathered so far (one at a time; what finishes meanwhile waits for the
   * next), then wakes the worker: the next delivery of each resource becomes claimable. A crash
   * before it only means a second delivery (at least once).
   */
  private flushOutcomes(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.delivered.length === 0 && this.failed.length === 0) return Promise.resolve();
    const delivered = this.delivered;
    const failed = this.failed;
    this.delivered = [];
    this.failed = [];
    this.flushing = this.repo
      .recordOutcomes(delivered, failed)
      .then((r) => {
        return r;
      })
      .then((failingSince) => this.disableExhausted(failed, failingSince))
      .catch((err: unknown) =>
        this.logger.warn({ err, deliveries: delivered.length + failed.length }, 'webhook outcomes not recorded; sent again when their leases end'),
      )
      .finally(() => {
        this.flushing = null;
        this.worker.wake();
        if (this.delivered.length + this.failed.length > 0) void this.flushOutcomes();
      });
    return this.flushing;
  }

  /**
   * Failing for the window: counted from the first failure since the last success. A delivery that
   * gave up at the end of its window ends it too (its last attempt is within one backoff of the end).
   */
  private async disableExhausted(failed: FailedOutcome[], failingSince: Map<number, Date>): Promise<void> {
    const now = Date.now();
    const { retryWindowMs, backoffMaxMs } = this.options;
    const due = new Set<number>();
    for (const f of failed) {
      const since = failingSince.get(f.endpointId);
      if (!since) continue;
      const failingFor = now - since.getTime();
      if (failingFor >= retryWindowMs || (f.exhausted && failingFor >= retryWindowMs - 2 * backoffMaxMs)) due.add(f.endpointId);
    }
    for (const endpointId of due) {
      if (await this.repo.disable(endpointId)) {
        this.logger.warn({ webhookId: endpointId, failingSince: failingSince.get(endpointId) }, 'webhook endpoint failing for the retry window; disabled');
      }
    }
  }

  /**
   * Claims as many deliveries as there are free slots and starts them without waiting, so a slow
   * endpoint holds one slot, not the whole batch; each finished delivery queues its outcome.
   */
  private async batch() {
    await this.purgeHourly();
    const free = this.options.concurrency - this.inFlight.size;
    // Claim in chunks (at least half the slots, or when idle) rather than one row per finished delivery.
    if (free <= 0 || (this.inFlight.size > 0 && free < this.options.concurrency / 2)) return { more: false };
    const claimed = await this.repo.claim(free, LEASE_SECONDS);
    for (const d of claimed) {
      this.inFlight.add(d.id);
      const task: Promise<void> = this.deliver(d)
        .catch((err: unknown) => this.logger.warn({ err, deliveryId: d.id }, 'webhook delivery not recorded; retried when its lease ends'))
        .finally(() => {
          this.inFlight.delete(d.id);
          this.tasks.delete(task);
          void this.flushOutcomes();
          this.worker.wake();
        });
      this.tasks.add(task);
    }
    return { done: claimed.length, more: claimed.length === free };
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const result = await sendWebhook(d.url, d.body, d.secret, this.options);
    const outcome = classify(result.status);
    if (outcome === 'delivered') {
      this.delivered.push({ id: d.id, endpointId: d.endpoint_id, responseCode: result.status!, latencyMs: result.latencyMs });
      return;
    }
    if (outcome === 'gone') {
      await this.repo.deleteEndpoint(d.endpoint_id);
      this.logger.info({ webhookId: d.endpoint_id }, 'webhook endpoint answered 410 Gone; subscription removed');
      return;
    }
    const retryAt = outcome === 'retry' ? nextAttempt(d.attempts, new Date(d.created_at), Date.now(), this.options) : null;
    this.failed.push({
      id: d.id,
      endpointId: d.endpoint_id,
      retryAt,
      responseCode: result.status,
      latencyMs: result.latencyMs,
      error: result.error ?? `HTTP ${result.status}`,
      exhausted: outcome === 'retry' && retryAt === null,
    });
  }

  private async purgeHourly(): Promise<void> {
    if (Date.now() - this.lastPurge < 3_600_000) return;
    this.lastPurge = Date.now();
    const purged = await this.repo.purge(new Date(Date.now() - this.options.logDays * 86_400_000));
    if (purged > 0) this.logger.info({ purged }, 'webhook deliveries older than the log window dropped');
  }
}
