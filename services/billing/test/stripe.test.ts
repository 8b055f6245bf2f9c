import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutSessionSchema, ErrorResponseSchema, SubscriptionChangeResultSchema, SubscriptionStatusResponseSchema } from '@msp/contracts';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadBillingConfig } from '../src/app.js';
import { startStripeStandIn, type StripeObject, type StripeStandIn } from '../src/dev/stripe-stand-in.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const WEB = 'http://web.test';
const SECRET = 'whsec_billing_service_test';
const PRICE = 'price_pro_test';

let env: ServiceTestEnv;
let stripe: StripeStandIn;
let app: Awaited<ReturnType<typeof buildApp>>;

function appEnv(): Record<string, string> {
  return { ...env.env, ...stripe.billingEnv(), STRIPE_PRICE_ID: PRICE, WEB_BASE_URL: WEB, WEBHOOK_POLL_MS: '100' };
}

const caller = (userId: number) => ({ 'x-user-id': String(userId), 'x-user-role': 'LISTENER', 'x-user-tier': 'FREE' });

function call(method: 'GET' | 'POST', url: string, userId?: number, payload?: unknown) {
  return app.inject({
    method,
    url,
    headers: { ...(userId === undefined ? {} : caller(userId)), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

async function statusOf(userId: number) {
  return SubscriptionStatusResponseSchema.strict().parse((await call('GET', '/api/subscription/status', userId)).json());
}

function webhook(body: string, signature: string | null) {
  return app.inject({
    method: 'POST',
    url: '/api/webhook/stripe',
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === null ? {} : { 'stripe-signature': signature }) },
    payload: body,
  });
}

/** Delivers an event signed like Stripe does; answers the response. */
function deliver(event: StripeObject, options: { secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify(event);
  return webhook(body, stripe.sign(body, options));
}

const storedEvents = () => app.infra.prisma.providerEvent.count();
const tierEvents = async (userId: number) =>
  (await app.infra.prisma.outboxEvent.findMany({ where: { type: 'billing.subscription.tier-changed.v1' }, orderBy: { seq: 'asc' } }))
    .map((e) => (e.payload as { data: { userId: number; tier: string; version: number } }).data)
    .filter((d) => d.userId === userId);

/** SUB-2, then Stripe's side of paying it: the events, not yet delivered. */
async function paidCheckout(userId: number) {
  const res = await call('POST', '/api/subscription/checkout', userId);
  expect(res.statusCode, res.body).toBe(200);
  const { sessionId } = CheckoutSessionSchema.parse(res.json());
  const { session, subscription } = stripe.completeCheckout(sessionId);
  return { session, subscription };
}

async function subscribe(userId: number): Promise<StripeObject> {
  const { session, subscription } = await paidCheckout(userId);
  expect((await deliver(stripe.event('checkout.session.completed', session))).statusCode).toBe(200);
  expect((await deliver(stripe.event('customer.subscription.created', subscription))).statusCode).toBe(200);
  await waitFor(async () => (await statusOf(userId)).status === 'active', { message: `user ${userId} not active` });
  return subscription;
}

beforeAll(async () => {
  env = await startServiceTestEnv('billing_stripe', migrations);
  stripe = await startStripeStandIn({ secretKey: 'sk_test_billing_service', webhookSecret: SECRET });
  app = await buildApp(loadBillingConfig(appEnv()), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await stripe?.close();
  await env?.close();
});

describe('SUB-2 checkout', () => {
  it('answers 401 UNAUTHORIZED without a caller', async () => {
    const res = await call('POST', '/api/subscription/checkout');
    expect(res.statusCode).toBe(401);
    expect(ErrorResponseSchema.parse(res.json()).code).toBe('UNAUTHORIZED');
  });

  it('opens a subscription-mode session for the Pro price with the R17 URLs and one customer per user', async () => {
    const first = await call('POST', '/api/subscription/checkout', 2001);
    expect(first.statusCode, first.body).toBe(200);
    const session = CheckoutSessionSchema.strict().parse(first.json());
    expect(session.sessionId).toMatch(/^cs_test_/);
    expect(session.checkoutUrl).toBe(`${stripe.url}/checkout/${session.sessionId}`);

    const recorded = stripe.requestsTo('POST', '/v1/checkout/sessions').at(-1)!;
    const customer = stripe.customerOfUser(2001)!;
    expect(recorded.body).toMatchObject({
      mode: 'subscription',
      customer: customer.id,
      client_reference_id: '2001',
      line_items: [{ price: PRICE, quantity: '1' }],
      success_url: `${WEB}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${WEB}/checkout/cancel`,
      subscription_data: { metadata: { userId: '2001' } },
    });

    const again = await call('POST', '/api/subscription/checkout', 2001, { plan: 'pro' });
    expect(again.statusCode).toBe(200);
    expect(stripe.requestsTo('POST', '/v1/checkout/sessions').at(-1)!.body.customer).toBe(customer.id);
    expect(stripe.requestsTo('POST', '/v1/customers').filter((r) => (r.body.metadata as Record<string, string>).userId === '2001')).toHaveLength(1);
  });

  it('answers 400 for a plan other than pro or a body that is not JSON, never reaching Stripe', async () => {
    const before = stripe.requests.length;
    const wrongPlan = await call('POST', '/api/subscription/checkout', 2002, { plan: 'gold' });
    expect(wrongPlan.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(wrongPlan.json())).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'plan' }] });
    const broken = await call('POST', '/api/subscription/checkout', 2002, '{"plan":');
    expect(broken.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(broken.json()).code).toBe('MALFORMED_REQUEST');
    expect(stripe.requests.length).toBe(before);
  });

  it('gives the user a new customer when the stored one no longer exists at Stripe', async () => {
    expect((await call('POST', '/api/subscription/checkout', 2005)).statusCode).toBe(200);
    const lost = stripe.customerOfUser(2005)!;
    stripe.customers.delete(lost.id);
    const res = await call('POST', '/api/subscription/checkout', 2005);
    expect(res.statusCode, res.body).toBe(200);
    const replacement = stripe.customerOfUser(2005)!;
    expect(replacement.id).not.toBe(lost.id);
    expect(stripe.requestsTo('POST', '/v1/checkout/sessions').at(-1)!.body.customer).toBe(replacement.id);
    expect((await app.infra.prisma.billingCustomer.findUnique({ where: { userId: 2005 } }))?.providerCustomerId).toBe(replacement.id);
  });

  it('answers 502 PROVIDER_ERROR when Stripe fails', async () => {
    stripe.failNext(500);
    stripe.failNext(500);
    const res = await call('POST', '/api/subscription/checkout', 2003);
    expect(res.statusCode).toBe(502);
    expect(ErrorResponseSchema.parse(res.json()).code).toBe('PROVIDER_ERROR');
  });

  it('answers 409 SUBSCRIPTION_ALREADY_ACTIVE while subscribed', async () => {
    await subscribe(2004);
    const res = await call('POST', '/api/subscription/checkout', 2004);
    expect(res.statusCode).toBe(409);
    expect(ErrorResponseSchema.parse(res.json()).code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
  });
});

describe('SUB-5 webhook', () => {
  it('links the checkout, applies the subscription and publishes the tier change once', async () => {
    const { session, subscription } = await paidCheckout(2101);
    const linked = await deliver(stripe.event('checkout.session.completed', session));
    expect(linked.statusCode).toBe(200);
    expect(linked.json()).toEqual({ message: 'Event received.' });
    await waitFor(async () => (await app.infra.prisma.subscription.findUnique({ where: { userId: 2101 } }))?.providerSubscriptionId === subscription.id);
    expect(await statusOf(2101)).toMatchObject({ status: 'cancelled', tier: 'FREE' });

    expect((await deliver(stripe.event('customer.subscription.created', subscription))).statusCode).toBe(200);
    const end = Number((subscription.items as { data: Array<{ current_period_end: number }> }).data[0]!.current_period_end);
    const active = await waitFor(async () => {
      const s = await statusOf(2101);
      return s.status === 'active' ? s : undefined;
    });
    expect(active).toEqual({
      status: 'active',
      plan: 'pro',
      tier: 'PRO',
      currentPeriodEnd: end,
      currentPeriodEndAt: new Date(end * 1000).toISOString(),
      cancelAtPeriodEnd: false,
    });
    expect(await tierEvents(2101)).toEqual([{ userId: 2101, tier: 'PRO', status: 'active', version: 1, currentPeriodEnd: new Date(end * 1000).toISOString() }]);
  });

  it('applies a subscription event that arrives before its checkout.session.completed', async () => {
    const { session, subscription } = await paidCheckout(2102);
    await deliver(stripe.event('customer.subscription.created', subscription));
    await waitFor(async () => (await statusOf(2102)).tier === 'PRO');
    await deliver(stripe.event('checkout.session.completed', session));
    await waitFor(async () => (await app.infra.prisma.providerEvent.count({ where: { processedAt: null } })) === 0);
    expect(await statusOf(2102)).toMatchObject({ status: 'active', tier: 'PRO' });
  });

  it('invoice.payment_failed → past_due still PRO; invoice.paid → active; deleted → cancelled FREE', async () => {
    const subscription = await subscribe(2103);
    const failed = stripe.updateSubscription(subscription.id, { status: 'past_due' });
    await deliver(stripe.event('invoice.payment_failed', stripe.invoiceFor(failed, 'open')));
    await waitFor(async () => (await statusOf(2103)).status === 'past_due');
    expect(await statusOf(2103)).toMatchObject({ status: 'past_due', plan: 'pro', tier: 'PRO' });

    await deliver(stripe.event('invoice.paid', stripe.invoiceFor(subscription, 'paid')));
    await waitFor(async () => (await statusOf(2103)).status === 'active');

    const ended = stripe.updateSubscription(subscription.id, { status: 'canceled' });
    await deliver(stripe.event('customer.subscription.deleted', ended));
    await waitFor(async () => (await statusOf(2103)).status === 'cancelled');
    expect(await statusOf(2103)).toMatchObject({ status: 'cancelled', plan: 'free', tier: 'FREE', cancelAtPeriodEnd: false });
    expect((await tierEvents(2103)).map((e) => [e.tier, e.version])).toEqual([
      ['PRO', 1],
      ['FREE', 2],
    ]);
  });

  it('stores an event id once: the same event twice changes nothing the second time', async () => {
    const subscription = await subscribe(2104);
    const ended = stripe.event('customer.subscription.deleted', stripe.updateSubscription(subscription.id, { status: 'canceled' }));
    expect((await deliver(ended)).json()).toEqual({ message: 'Event received.' });
    await waitFor(async () => (await statusOf(2104)).status === 'cancelled');
    // The user subscribes again; the old deletion delivered again must not cancel the new one.
    await subscribe(2104);
    const again = await deliver(ended);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ message: 'Event already received.' });
    expect(await app.infra.prisma.providerEvent.count({ where: { id: String(ended.id) } })).toBe(1);
    expect(await statusOf(2104)).toMatchObject({ status: 'active', tier: 'PRO' });
  });

  it('drops an updated event older than the last one applied', async () => {
    const subscription = await subscribe(2105);
    const created = Math.floor(Date.now() / 1000);
    const newer = stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancel_at_period_end: true }), {
      created: created + 5,
    });
    const older = stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancel_at_period_end: false }), {
      created: created + 2,
    });
    await deliver(newer);
    await waitFor(async () => (await statusOf(2105)).cancelAtPeriodEnd);
    expect((await deliver(older)).statusCode).toBe(200);
    await waitFor(async () => (await app.infra.prisma.providerEvent.findUnique({ where: { id: String(older.id) } }))?.outcome === 'stale');
    expect(await statusOf(2105)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  });

  it('answers 400 INVALID_SIGNATURE and stores nothing for a missing, wrong or stale signature or a changed body', async () => {
    const { subscription } = await paidCheckout(2106);
    const event = stripe.event('customer.subscription.created', subscription);
    const body = JSON.stringify(event);
    const before = await storedEvents();
    const changed = body.replace('"active"', '"activf"');
    expect(changed).not.toBe(body);
    expect(Buffer.byteLength(changed)).toBe(Buffer.byteLength(body));
    const cases = [
      await webhook(body, null),
      await webhook(body, 'garbage'),
      await webhook(changed, stripe.sign(body)),
      await deliver(event, { secret: 'whsec_someone_else' }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ];
    for (const res of cases) {
      expect(res.statusCode, res.body).toBe(400);
      expect(ErrorResponseSchema.parse(res.json())).toMatchObject({ code: 'INVALID_SIGNATURE', path: '/api/webhook/stripe' });
    }
    expect(await storedEvents()).toBe(before);
    // Within the tolerance the same event is accepted.
    expect((await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 250 })).statusCode).toBe(200);
  });

  it('answers 200 to an unknown event type without storing it, and 400 to signed bytes that are not an event', async () => {
    const before = await storedEvents();
    const unknown = await deliver(stripe.event('customer.created', { id: 'cus_x', object: 'customer' }));
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json().message).toContain('ignored');
    expect(await storedEvents()).toBe(before);

    const notJson = await webhook('{"id": ', stripe.sign('{"id": '));
    expect(notJson.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(notJson.json()).code).toBe('MALFORMED_REQUEST');
    const notEvent = await webhook('{"hello":"world"}', stripe.sign('{"hello":"world"}'));
    expect(notEvent.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(notEvent.json()).code).toBe('VALIDATION_FAILED');
    const empty = await webhook('', stripe.sign(''));
    expect(empty.statusCode).toBe(400);
    expect(await storedEvents()).toBe(before);
  });

  it('retries an event whose processing failed, from the stored event, and applies it once', async () => {
    // The first write of this user's subscription fails (a sequence survives the rollback).
    await app.infra.prisma.$executeRawUnsafe(`CREATE SEQUENCE fail_once_2108`);
    await app.infra.prisma.$executeRawUnsafe(`
      CREATE FUNCTION fail_once_2108() RETURNS trigger AS $$
      BEGIN
        IF NEW.user_id = 2108 AND nextval('fail_once_2108') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await app.infra.prisma.$executeRawUnsafe(
      `CREATE TRIGGER fail_once_2108 BEFORE INSERT OR UPDATE ON subscriptions FOR EACH ROW EXECUTE FUNCTION fail_once_2108()`,
    );
    try {
      const { session } = await paidCheckout(2108);
      const event = stripe.event('checkout.session.completed', session);
      expect((await deliver(event)).statusCode).toBe(200);
      const failed = await waitFor(async () => {
        const row = await app.infra.prisma.providerEvent.findUnique({ where: { id: String(event.id) } });
        return row && row.attempts === 1 ? row : undefined;
      });
      expect(failed).toMatchObject({ processedAt: null, lastError: expect.stringContaining('injected failure') });
      const applied = await waitFor(
        async () => {
          const row = await app.infra.prisma.providerEvent.findUnique({ where: { id: String(event.id) } });
          return row?.processedAt ? row : undefined;
        },
        { timeoutMs: 8000, message: 'not retried' },
      );
      expect(applied).toMatchObject({ outcome: 'applied', attempts: 2, lastError: null });
      expect(await app.infra.prisma.subscription.count({ where: { userId: 2108 } })).toBe(1);
    } finally {
      await app.infra.prisma.$executeRawUnsafe(`DROP TRIGGER fail_once_2108 ON subscriptions`);
    }
  });

  it('applies an event received before a restart after the restart, once', async () => {
    const { session, subscription } = await paidCheckout(2107);
    await deliver(stripe.event('checkout.session.completed', session));
    await waitFor(async () => (await app.infra.prisma.providerEvent.count({ where: { processedAt: null } })) === 0);
    // Received and stored, but the process goes away before its worker takes it.
    await app.webhookWorker.stop();
    const created = stripe.event('customer.subscription.created', subscription);
    expect((await deliver(created)).statusCode).toBe(200);
    expect((await app.infra.prisma.providerEvent.findUnique({ where: { id: String(created.id) } }))?.processedAt).toBeNull();
    // Retention: a processed event older than WEBHOOK_RETENTION_DAYS is forgotten at start, an
    // unprocessed one never.
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    await app.infra.prisma.providerEvent.createMany({
      data: [
        { id: 'evt_old_processed', type: 'invoice.paid', createdAt: longAgo, payload: {}, receivedAt: longAgo, processedAt: longAgo, outcome: 'applied' },
        { id: 'evt_old_waiting', type: 'invoice.paid', createdAt: longAgo, payload: {}, receivedAt: longAgo, nextAttemptAt: new Date(Date.now() + 86_400_000) },
      ],
    });
    await app.close();

    app = await buildApp(loadBillingConfig(appEnv()), { logger: false });
    await app.ready();
    await waitFor(async () => (await statusOf(2107)).status === 'active', { message: 'not applied after the restart' });
    const stored = await app.infra.prisma.providerEvent.findUnique({ where: { id: String(created.id) } });
    expect(stored).toMatchObject({ outcome: 'applied', attempts: 1 });
    expect(await tierEvents(2107)).toHaveLength(1);
    expect((await app.infra.prisma.providerEvent.findMany({ where: { id: { startsWith: 'evt_old_' } } })).map((e) => e.id)).toEqual(['evt_old_waiting']);
  });
});

describe('SUB-3 cancel and SUB-4 renew', () => {
  it('answers 409 SUBSCRIPTION_STATE_CONFLICT without a subscription, and 401 without a caller', async () => {
    for (const url of ['/api/subscription/cancel', '/api/subscription/renew']) {
      const res = await call('POST', url, 2201);
      expect(res.statusCode).toBe(409);
      expect(ErrorResponseSchema.parse(res.json()).code).toBe('SUBSCRIPTION_STATE_CONFLICT');
      expect((await call('POST', url)).statusCode).toBe(401);
      const broken = await call('POST', url, 2201, '{"x":');
      expect(broken.statusCode).toBe(400);
      expect(ErrorResponseSchema.parse(broken.json()).code).toBe('MALFORMED_REQUEST');
    }
  });

  it('cancels at the period end through Stripe (PRO until then) and renews', async () => {
    const subscription = await subscribe(2202);
    const cancelled = await call('POST', '/api/subscription/cancel', 2202);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const body = SubscriptionChangeResultSchema.strict().parse(cancelled.json());
    expect(body).toMatchObject({ status: 'active', plan: 'pro', tier: 'PRO', cancelAtPeriodEnd: true });
    expect(body.currentPeriodEnd).toBeGreaterThan(Date.now() / 1000);
    expect(stripe.requestsTo('POST', `/v1/subscriptions/${subscription.id}`).at(-1)!.body).toEqual({ cancel_at_period_end: 'true' });
    expect(await statusOf(2202)).toMatchObject({ tier: 'PRO', cancelAtPeriodEnd: true });
    // Asked again: the same answer, no second call.
    const calls = stripe.requests.length;
    expect((await call('POST', '/api/subscription/cancel', 2202)).json().cancelAtPeriodEnd).toBe(true);
    expect(stripe.requests.length).toBe(calls);

    const renewed = await call('POST', '/api/subscription/renew', 2202);
    expect(renewed.statusCode).toBe(200);
    expect(SubscriptionChangeResultSchema.strict().parse(renewed.json())).toMatchObject({ tier: 'PRO', cancelAtPeriodEnd: false });
    expect(stripe.requestsTo('POST', `/v1/subscriptions/${subscription.id}`).at(-1)!.body).toEqual({ cancel_at_period_end: 'false' });
    expect(await statusOf(2202)).toMatchObject({ cancelAtPeriodEnd: false });
    // No tier change happened: the only tier event is the subscription's start.
    expect((await tierEvents(2202)).map((e) => e.tier)).toEqual(['PRO']);
  });

  it('answers 409 once the subscription has ended (a new checkout is needed)', async () => {
    const subscription = await subscribe(2203);
    await deliver(stripe.event('customer.subscription.deleted', stripe.updateSubscription(subscription.id, { status: 'canceled' })));
    await waitFor(async () => (await statusOf(2203)).status === 'cancelled');
    expect((await call('POST', '/api/subscription/renew', 2203)).statusCode).toBe(409);
    expect((await call('POST', '/api/subscription/cancel', 2203)).statusCode).toBe(409);
  });
});
