/**
 * A local stand-in of the few Stripe API endpoints billing calls, answering with Stripe's object
 * shapes (API version of the installed `stripe` library), so development and tests run the real
 * library against something the project owns. It keeps its objects in memory, records every
 * request, and plays Stripe's side of a payment: `completeCheckout` turns an open Checkout Session
 * into a customer's active subscription, `event` builds an Event around an object, and `deliver`
 * signs one and POSTs it to the webhook URL, as Stripe (or the Stripe CLI's `trigger`) would.
 *
 * Endpoints: POST /v1/customers, GET /v1/customers/:id, POST /v1/checkout/sessions,
 * GET /v1/checkout/sessions/:id, GET|POST|DELETE /v1/subscriptions/:id, DELETE /v1/customers/:id;
 * development helpers:
 * GET /checkout/:sessionId (the checkout page: pays the session and delivers its events) and
 * POST /_stand-in/trigger {type, userId} (used by `pnpm --filter @msp/billing stripe:trigger`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import {
  customerObject,
  decodeStripeForm,
  eventObject,
  invoiceObject,
  newId,
  itemsOf,
  now,
  periodEndOf,
  sessionObject,
  subscriptionObject,
  type StripeObject,
} from './stripe-objects.js';

export { decodeStripeForm, type StripeObject } from './stripe-objects.js';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form-encoded body decoded into nested objects (Stripe's bracket notation). */
  body: Record<string, unknown>;
  idempotencyKey: string | null;
}

export interface StandInOptions {
  /** Bearer key the library must send (STRIPE_SECRET_KEY). */
  secretKey: string;
  /** Signing secret of the webhook endpoint (STRIPE_WEBHOOK_SECRET). */
  webhookSecret: string;
  /** Where `deliver` posts events; without it events are only built. */
  webhookUrl?: string;
  /** `completeCheckout` and the checkout page also deliver their events (development). */
  autoDeliver?: boolean;
  host?: string;
  port?: number;
}

export interface StandInEventOptions {
  /** Event `created`, epoch seconds (default now). */
  created?: number;
}

export const TRIGGER_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

class StandInError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: { code?: string; param?: string } = {},
  ) {
    super(message);
  }
}

export class StripeStandIn {
  readonly customers = new Map<string, StripeObject>();
  readonly sessions = new Map<string, StripeObject>();
  readonly subscriptions = new Map<string, StripeObject>();
  readonly requests: RecordedRequest[] = [];
  /** Events delivered to the webhook URL, with the status it answered. */
  readonly delivered: Array<{ event: StripeObject; status: number }> = [];
  private readonly idempotent = new Map<string, { status: number; body: unknown }>();
  private failures: Array<{ status: number; message: string }> = [];
  private server: http.Server | null = null;
  url = '';
  port = 0;

  constructor(private readonly options: StandInOptions) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://${this.options.host ?? '127.0.0.1'}:${this.port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Environment that points billing at this stand-in. */
  billingEnv(): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: this.options.secretKey,
      STRIPE_WEBHOOK_SECRET: this.options.webhookSecret,
      STRIPE_API_HOST: '127.0.0.1',
      STRIPE_API_PORT: String(this.port),
      STRIPE_API_PROTOCOL: 'http',
    };
  }

  setWebhookUrl(url: string): void {
    this.options.webhookUrl = url;
  }

  /** The next API call answers this error (Stripe's error shape), e.g. to exercise PROVIDER_ERROR. */
  failNext(status = 500, message = 'The stand-in was told to fail.'): void {
    this.failures.push({ status, message });
  }

  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  customerOfUser(userId: number): StripeObject | undefined {
    return [...this.customers.values()].find((c) => (c.metadata as Record<string, string>)?.userId === String(userId));
  }

  subscriptionOfUser(userId: number): StripeObject | undefined {
    const mine = [...this.subscriptions.values()].filter((s) => (s.metadata as Record<string, string>)?.userId === String(userId));
    return mine.at(-1);
  }

  // ---- Stripe's side of a payment ---------------------------------------------------------------

  /**
   * The customer pays an open Checkout Session: the session completes and links a new
   * subscription (status `active` unless told otherwise, one month period) to its customer.
   */
  completeCheckout(sessionId: string, options: { status?: string } = {}): { session: StripeObject; subscription: StripeObject } {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    const subscription = this.createSubscription(
      String(session.customer),
      String(((session.subscription_data as Record<string, unknown>)?.metadata as Record<string, string>)?.userId ?? session.client_reference_id ?? ''),
      String((session.line_items as Array<Record<string, unknown>>)?.[0]?.price ?? 'price_unknown'),
      options.status ?? 'active',
    );
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription.id });
    return { session: { ...session }, subscription: { ...subscription } };
  }

  /** Changes a stored subscription as Stripe would (status, cancel_at_period_end, period end). */
  updateSubscription(id: string, changes: { status?: string; cancel_at_period_end?: boolean; current_period_end?: number }): StripeObject {
    const sub = this.subscriptions.get(id);
    if (!sub) throw new Error(`no subscription ${id}`);
    if (changes.status !== undefined) sub.status = changes.status;
    if (changes.status === 'canceled') sub.canceled_at = sub.ended_at = now();
    if (changes.cancel_at_period_end !== undefined) {
      sub.cancel_at_period_end = changes.cancel_at_period_end;
      sub.cancel_at = changes.cancel_at_period_end ? periodEndOf(sub) : null;
      sub.canceled_at = changes.cancel_at_period_end ? now() : null;
    }
    if (changes.current_period_end !== undefined) {
      for (const item of itemsOf(sub)) item.current_period_end = changes.current_period_end;
    }
    return { ...sub };
  }

  /** An invoice of the subscription, in the shape of the current API (parent.subscription_details). */
  invoiceFor(subscription: StripeObject, status: 'paid' | 'open'): StripeObject {
    return invoiceObject(subscription, status);
  }

  /** A Stripe Event carrying a snapshot of `object`. */
  event(type: string, object: Record<string, unknown>, options: StandInEventOptions = {}): StripeObject {
    return eventObject(type, object, options.created);
  }

  /** The Stripe-Signature header for a payload, signed like Stripe does. */
  sign(payload: string, options: { secret?: string; timestamp?: number } = {}): string {
    return Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? this.options.webhookSecret,
      timestamp: options.timestamp ?? now(),
    });
  }

  /** Signs and POSTs an event to the webhook URL; returns its HTTP status. */
  async deliver(event: StripeObject): Promise<number> {
    if (!this.options.webhookUrl) throw new Error('the stand-in has no webhook URL');
    const payload = JSON.stringify(event, null, 2);
    const res = await fetch(this.options.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': this.sign(payload) },
      body: payload,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    this.delivered.push({ event, status: res.status });
    return res.status;
  }

  /**
   * Builds (and, with a webhook URL, delivers) the event `type` for a user, creating the customer
   * and subscription it needs, like `stripe trigger` does against a test account.
   */
  async trigger(type: TriggerType, userId: number): Promise<{ event: StripeObject; status: number | null }> {
    const customer = this.customerOfUser(userId) ?? this.createCustomer({ metadata: { userId: String(userId) } });
    let sub = this.subscriptionOfUser(userId);
    if (!sub || (sub.status === 'canceled' && (type === 'checkout.session.completed' || type === 'customer.subscription.created'))) {
      sub = this.createSubscription(customer.id, String(userId), 'price_msp_pro_monthly', 'active');
    }
    let object: Record<string, unknown>;
    switch (type) {
      case 'checkout.session.completed': {
        const session = this.createSession({
          mode: 'subscription',
          customer: customer.id,
          client_reference_id: String(userId),
          success_url: 'http://localhost:3000/checkout/success?session_id={CHECKOUT_SESSION_ID}',
          cancel_url: 'http://localhost:3000/checkout/cancel',
        });
        Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: sub.id });
        object = session;
        break;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
        object = sub;
        break;
      case 'customer.subscription.deleted':
        object = this.updateSubscription(sub.id, { status: 'canceled', cancel_at_period_end: false });
        break;
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
        object = this.invoiceFor(this.updateSubscription(sub.id, { status: 'active' }), 'paid');
        break;
      case 'invoice.payment_failed':
        object = this.invoiceFor(this.updateSubscription(sub.id, { status: 'past_due' }), 'open');
        break;
    }
    const event = this.event(type, object);
    const status = this.options.webhookUrl ? await this.deliver(event) : null;
    return { event, status };
  }

  // ---- HTTP --------------------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req'), ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      if (method === 'GET' && url.pathname.startsWith('/checkout/')) return await this.checkoutPage(url.pathname.slice('/checkout/'.length), res);
      if (method === 'POST' && url.pathname === '/_stand-in/trigger') return send(200, await this.triggerRoute(raw));
      if (!url.pathname.startsWith('/v1/')) throw new StandInError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${url.pathname}).`);

      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${this.options.secretKey}`) {
        throw new StandInError(401, 'invalid_request_error', 'Invalid API Key provided.');
      }
      const body = req.headers['content-type']?.includes('application/x-www-form-urlencoded') ? decodeStripeForm(raw) : {};
      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
      this.requests.push({ method, path: url.pathname, body, idempotencyKey: key });
      const failure = this.failures.shift();
      if (failure) throw new StandInError(failure.status, 'api_error', failure.message);
      if (key && this.idempotent.has(`${method} ${url.pathname} ${key}`)) {
        const replay = this.idempotent.get(`${method} ${url.pathname} ${key}`)!;
        return send(replay.status, replay.body, { 'idempotent-replayed': 'true' });
      }
      const answer = this.route(method, url.pathname, body);
      if (key && method === 'POST') this.idempotent.set(`${method} ${url.pathname} ${key}`, { status: 200, body: answer });
      send(200, answer);
    } catch (err) {
      const e = err instanceof StandInError ? err : new StandInError(500, 'api_error', (err as Error).message);
      send(e.status, { error: { type: e.type, message: e.message, ...e.extra } });
    }
  }

  private route(method: string, path: string, body: Record<string, unknown>): StripeObject {
    const parts = path.split('/').filter(Boolean); // ['v1', resource, id?]
    const [, resource, second, third] = parts;
    if (resource === 'customers' && parts.length === 2 && method === 'POST') return this.createCustomer(body);
    if (resource === 'customers' && parts.length === 3 && method === 'GET') return this.found(this.customers, second!, 'customer');
    if (resource === 'checkout' && second === 'sessions' && parts.length === 3 && method === 'POST') return this.createSession(body);
    if (resource === 'checkout' && second === 'sessions' && parts.length === 4 && method === 'GET')
      return this.found(this.sessions, third!, 'checkout.session');
    if (resource === 'subscriptions' && parts.length === 3 && method === 'GET') return this.found(this.subscriptions, second!, 'subscription');
    if (resource === 'subscriptions' && parts.length === 3 && method === 'POST') {
      this.found(this.subscriptions, second!, 'subscription');
      const cancel = body.cancel_at_period_end;
      return this.updateSubscription(second!, cancel === undefined ? {} : { cancel_at_period_end: cancel === 'true' });
    }
    // ACC-5: cancel at once (Stripe answers the canceled subscription) and delete a customer
    // (Stripe cancels its subscriptions and answers {id, object, deleted: true}).
    if (resource === 'subscriptions' && parts.length === 3 && method === 'DELETE') {
      this.found(this.subscriptions, second!, 'subscription');
      return this.updateSubscription(second!, { status: 'canceled' });
    }
    if (resource === 'customers' && parts.length === 3 && method === 'DELETE') {
      this.found(this.customers, second!, 'customer');
      this.customers.delete(second!);
      for (const sub of this.subscriptions.values()) {
        if (sub.customer === second && sub.status !== 'canceled') this.updateSubscription(String(sub.id), { status: 'canceled' });
      }
      return { id: second!, object: 'customer', deleted: true };
    }
    throw new StandInError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  private found(map: Map<string, StripeObject>, id: string, kind: string): StripeObject {
    const object = map.get(id);
    if (!object) throw new StandInError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param: 'id' });
    return { ...object };
  }

  private createCustomer(body: Record<string, unknown>): StripeObject {
    const customer = customerObject(body);
    this.customers.set(customer.id, customer);
    return { ...customer };
  }

  private createSession(body: Record<string, unknown>): StripeObject {
    if (body.mode !== 'subscription') throw new StandInError(400, 'invalid_request_error', 'The stand-in supports subscription mode only.');
    if (typeof body.customer === 'string' && !this.customers.has(body.customer)) {
      throw new StandInError(400, 'invalid_request_error', `No such customer: '${body.customer}'`, { code: 'resource_missing', param: 'customer' });
    }
    const session = sessionObject(body, this.url);
    this.sessions.set(session.id, session);
    // The creation answer has no line_items (Stripe expands them only on request).
    const { line_items: _items, subscription_data: _data, ...answer } = session;
    return answer as StripeObject;
  }

  private createSubscription(customer: string, userId: string, price: string, status: string): StripeObject {
    const sub = subscriptionObject(customer, userId, price, status);
    this.subscriptions.set(sub.id, sub);
    return sub;
  }

  /** Development: opening checkoutUrl pays the session and delivers Stripe's events. */
  private async checkoutPage(sessionId: string, res: http.ServerResponse): Promise<void> {
    const { session, subscription } = this.completeCheckout(sessionId);
    const events = [
      this.event('checkout.session.completed', session),
      this.event('customer.subscription.created', subscription),
      this.event('invoice.paid', this.invoiceFor(subscription, 'paid')),
    ];
    const statuses = this.options.webhookUrl && this.options.autoDeliver !== false ? await Promise.all(events.map((e) => this.deliver(e))) : [];
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      `Stripe stand-in: checkout session ${sessionId} paid; subscription ${subscription.id} is active.\n` +
        (statuses.length
          ? `Events delivered to ${this.options.webhookUrl}: ${events.map((e, i) => `${e.type} → ${statuses[i]}`).join(', ')}\n`
          : 'No webhook URL: events not delivered.\n') +
        `Back to: ${String(session.success_url).replace('{CHECKOUT_SESSION_ID}', sessionId)}\n`,
    );
  }

  private async triggerRoute(raw: string): Promise<unknown> {
    const body = JSON.parse(raw || '{}') as { type?: string; userId?: number };
    if (!TRIGGER_TYPES.includes(body.type as TriggerType) || !Number.isInteger(body.userId) || (body.userId ?? 0) < 1) {
      throw new StandInError(400, 'invalid_request_error', `Expected {type: one of ${TRIGGER_TYPES.join(', ')}, userId: positive integer}.`);
    }
    const { event, status } = await this.trigger(body.type as TriggerType, body.userId!);
    return { eventId: event.id, type: event.type, webhookUrl: this.options.webhookUrl ?? null, webhookStatus: status };
  }
}

export async function startStripeStandIn(options: StandInOptions): Promise<StripeStandIn> {
  return new StripeStandIn(options).start();
}
