import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { CheckoutSessionSchema } from '@msp/contracts';
import { createEnvelope, UserDeleted } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadBillingConfig } from '../src/app.js';
import { startStripeStandIn, type StripeObject, type StripeStandIn } from '../src/dev/stripe-stand-in.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const SECRET = 'whsec_billing_deletion_test';

let env: ServiceTestEnv;
let stripe: StripeStandIn;
let app: Awaited<ReturnType<typeof buildApp>>;
const SUBSCRIBER = 9701,
  CUSTOMER_ONLY = 9702,
  OTHER = 9703;

const caller = (userId: number) => ({ 'x-user-id': String(userId), 'x-user-role': 'LISTENER', 'x-user-tier': 'FREE' });

function deliver(event: StripeObject) {
  const body = JSON.stringify(event);
  return app.inject({
    method: 'POST',
    url: '/api/webhook/stripe',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripe.sign(body) },
    payload: body,
  });
}

async function checkout(userId: number) {
  const res = await app.inject({ method: 'POST', url: '/api/subscription/checkout', headers: caller(userId) });
  expect(res.statusCode, res.body).toBe(200);
  return CheckoutSessionSchema.parse(res.json()).sessionId;
}

async function subscribe(userId: number): Promise<StripeObject> {
  const { session, subscription } = stripe.completeCheckout(await checkout(userId));
  expect((await deliver(stripe.event('checkout.session.completed', session))).statusCode).toBe(200);
  expect((await deliver(stripe.event('customer.subscription.created', subscription))).statusCode).toBe(200);
  expect((await deliver(stripe.event('invoice.paid', stripe.invoiceFor(subscription, 'paid')))).statusCode).toBe(200);
  await waitFor(async () => (await app.infra.prisma.subscription.findUnique({ where: { userId } }))?.status === 'active', { message: 'not active' });
  await waitFor(async () => (await app.infra.prisma.providerEvent.count({ where: { processedAt: null } })) === 0, { message: 'events pending' });
  return subscription;
}

async function deleteUser(userId: number) {
  const envelope = createEnvelope(UserDeleted, { userId });
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await app.infra.prisma.processedEvent.count({ where: { eventId: envelope.id, consumer: 'billing--user-deletion' } })) > 0, {
    timeoutMs: 30_000,
    message: 'deletion not processed',
  });
}

/** Rows naming the user: integer user columns, and provider event payloads mentioning them. */
async function traces(userId: number, customerId: string) {
  const db = app.infra.prisma;
  return {
    subscriptions: await db.subscription.count({ where: { userId } }),
    customers: await db.billingCustomer.count({ where: { userId } }),
    events: (
      await db.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM provider_events WHERE payload::text LIKE '%"userId": "${userId}"%' OR payload::text LIKE '%"${customerId}"%'
            OR payload::text LIKE '%"userId":"${userId}"%'`,
      )
    )[0]!.n,
  };
}

beforeAll(async () => {
  env = await startServiceTestEnv('billing_account_deletion', migrations);
  stripe = await startStripeStandIn({ secretKey: 'sk_test_billing_deletion', webhookSecret: SECRET });
  app = await buildApp(
    loadBillingConfig({ ...env.env, ...stripe.billingEnv(), STRIPE_PRICE_ID: 'price_pro_test', WEB_BASE_URL: 'http://web.test', WEBHOOK_POLL_MS: '100' }),
    { logger: false },
  );
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await stripe?.close();
  await env?.close();
});

describe('ACC-5 user deleted (identity.user.deleted.v1) in billing', () => {
  it('cancels the Stripe subscription at once, deletes the customer, keeps an anonymous record, redacts the provider events', async () => {
    const subscription = await subscribe(SUBSCRIBER);
    await subscribe(OTHER);
    const customerId = String(subscription.customer);
    expect(await traces(SUBSCRIBER, customerId)).toMatchObject({ subscriptions: 1, customers: 1 });
    expect((await traces(SUBSCRIBER, customerId)).events).toBeGreaterThan(0);
    // The provider fails once: the event is retried and the deletion converges.
    stripe.failNext(500);
    await deleteUser(SUBSCRIBER);

    expect(stripe.subscriptions.get(String(subscription.id))?.status).toBe('canceled');
    expect(stripe.customers.has(customerId)).toBe(false);
    expect(await traces(SUBSCRIBER, customerId)).toEqual({ subscriptions: 0, customers: 0, events: 0 });
    const retained = await app.infra.prisma.retainedBillingRecord.findMany();
    expect(retained).toEqual([
      expect.objectContaining({ providerSubscriptionId: subscription.id, providerCustomerId: customerId, plan: 'pro', status: 'cancelled' }),
    ]);
    expect(Object.keys(retained[0]!)).not.toContain('userId');
    // The other subscriber is untouched.
    expect(await app.infra.prisma.subscription.findUnique({ where: { userId: OTHER } })).toMatchObject({ status: 'active' });
  });

  it("the provider's later news about the deleted subscription is ignored (no row comes back)", async () => {
    const [record] = await app.infra.prisma.retainedBillingRecord.findMany();
    const sub = stripe.subscriptions.get(record!.providerSubscriptionId!)!;
    expect((await deliver(stripe.event('customer.subscription.deleted', { ...sub, status: 'canceled' }))).statusCode).toBe(200);
    await waitFor(async () => (await app.infra.prisma.providerEvent.count({ where: { processedAt: null } })) === 0, { message: 'event pending' });
    expect(await app.infra.prisma.subscription.count({ where: { userId: SUBSCRIBER } })).toBe(0);
  });

  it('a user with only a customer (checkout never paid) loses it; the event again changes nothing', async () => {
    await checkout(CUSTOMER_ONLY);
    const customer = stripe.customerOfUser(CUSTOMER_ONLY)!;
    await deleteUser(CUSTOMER_ONLY);
    expect(stripe.customers.has(String(customer.id))).toBe(false);
    expect(await traces(CUSTOMER_ONLY, String(customer.id))).toEqual({ subscriptions: 0, customers: 0, events: 0 });
    await deleteUser(CUSTOMER_ONLY);
    await deleteUser(SUBSCRIBER);
    expect(await app.infra.prisma.retainedBillingRecord.count()).toBe(1);
  });
});
