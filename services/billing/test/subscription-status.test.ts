import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { ErrorResponseSchema, SubscriptionStatusResponseSchema } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadBillingConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
/** Exactly the fields of the SubscriptionStatusResponse record, no more. */
const StatusRecord = SubscriptionStatusResponseSchema.strict();

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

function status(userId?: number) {
  return app.inject({
    method: 'GET',
    url: '/api/subscription/status',
    headers: userId === undefined ? {} : { 'x-user-id': String(userId), 'x-user-role': 'LISTENER', 'x-user-tier': 'FREE' },
  });
}

beforeAll(async () => {
  env = await startServiceTestEnv('billing', migrations);
  app = await buildApp(loadBillingConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('billing service foundation', () => {
  it('answers /health and reports every dependency up on /ready', async () => {
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.json()).toEqual({ status: 'up', service: 'billing' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'up',
      service: 'billing',
      checks: { database: 'up', nats: 'up', redis: 'up', storage: 'up' },
    });
  });

  it('owns the BILLING stream for billing.> subjects', async () => {
    const info = await (await jetstreamManager(app.infra.nc)).streams.info('BILLING');
    expect(info.config.subjects).toEqual(['billing.>']);
  });
});

describe('SUB-1 subscription status', () => {
  it('answers 401 UNAUTHORIZED without a caller', async () => {
    const res = await status();
    expect(res.statusCode).toBe(401);
    const body = ErrorResponseSchema.parse(res.json());
    expect(body).toMatchObject({ status: 401, code: 'UNAUTHORIZED', path: '/api/subscription/status' });
  });

  it('answers the free default for a user who never subscribed', async () => {
    const res = await status(1001);
    expect(res.statusCode).toBe(200);
    expect(StatusRecord.parse(res.json())).toEqual({
      status: 'cancelled',
      plan: 'free',
      tier: 'FREE',
      currentPeriodEnd: null,
      currentPeriodEndAt: null,
      cancelAtPeriodEnd: false,
    });
  });

  it('answers PRO with the period end in epoch seconds and ISO for an active subscription', async () => {
    const periodEnd = new Date('2027-01-15T10:30:00.000Z');
    await app.infra.prisma.subscription.create({
      data: {
        userId: 1002,
        providerCustomerId: 'cus_1002',
        providerSubscriptionId: 'sub_1002',
        status: 'active',
        plan: 'pro',
        currentPeriodEnd: periodEnd,
        cancelAtPeriodEnd: true,
      },
    });
    const res = await status(1002);
    expect(res.statusCode).toBe(200);
    expect(StatusRecord.parse(res.json())).toEqual({
      status: 'active',
      plan: 'pro',
      tier: 'PRO',
      currentPeriodEnd: 1_800_009_000,
      currentPeriodEndAt: '2027-01-15T10:30:00.000Z',
      cancelAtPeriodEnd: true,
    });
    expect(res.json().currentPeriodEnd).toBe(periodEnd.getTime() / 1000);
  });

  it('keeps PRO while trialing or past_due (R17)', async () => {
    await app.infra.prisma.subscription.createMany({
      data: [
        { userId: 1003, status: 'trialing', plan: 'pro', currentPeriodEnd: new Date('2027-02-01T00:00:00.000Z') },
        { userId: 1004, status: 'past_due', plan: 'pro', currentPeriodEnd: null },
      ],
    });
    const trialing = StatusRecord.parse((await status(1003)).json());
    expect(trialing).toMatchObject({ status: 'trialing', plan: 'pro', tier: 'PRO', currentPeriodEndAt: '2027-02-01T00:00:00.000Z' });
    const pastDue = StatusRecord.parse((await status(1004)).json());
    expect(pastDue).toEqual({
      status: 'past_due',
      plan: 'pro',
      tier: 'PRO',
      currentPeriodEnd: null,
      currentPeriodEndAt: null,
      cancelAtPeriodEnd: false,
    });
  });

  it('answers FREE and the free plan for a cancelled subscription, keeping its last period end', async () => {
    await app.infra.prisma.subscription.create({
      data: {
        userId: 1005,
        providerSubscriptionId: 'sub_1005',
        status: 'cancelled',
        plan: 'pro',
        currentPeriodEnd: new Date('2026-03-01T00:00:00.000Z'),
      },
    });
    const res = await status(1005);
    expect(res.statusCode).toBe(200);
    expect(StatusRecord.parse(res.json())).toEqual({
      status: 'cancelled',
      plan: 'free',
      tier: 'FREE',
      currentPeriodEnd: Date.UTC(2026, 2, 1) / 1000,
      currentPeriodEndAt: '2026-03-01T00:00:00.000Z',
      cancelAtPeriodEnd: false,
    });
  });

  it('answers each caller with their own subscription only', async () => {
    expect((await status(1001)).json().tier).toBe('FREE');
    expect((await status(1002)).json().tier).toBe('PRO');
  });
});

describe('internal subscription lookup (identity decides USR-5 with it)', () => {
  it('answers the stored subscription, 404 for a user who never subscribed, 400 for a bad id, and is not in OpenAPI', async () => {
    await app.infra.prisma.subscription.create({
      data: {
        userId: 1500,
        providerCustomerId: 'cus_1500',
        providerSubscriptionId: 'sub_1500',
        status: 'past_due',
        plan: 'pro',
        currentPeriodEnd: new Date('2027-02-01T00:00:00.000Z'),
        cancelAtPeriodEnd: false,
      },
    });
    const found = await app.inject({ method: 'GET', url: '/internal/subscriptions/1500' });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual({ userId: 1500, status: 'past_due', currentPeriodEnd: '2027-02-01T00:00:00.000Z', cancelAtPeriodEnd: false });
    const none = await app.inject({ method: 'GET', url: '/internal/subscriptions/1501' });
    expect(none.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/internal/subscriptions/abc' })).statusCode).toBe(400);
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/internal'))).toBe(false);
  });
});
