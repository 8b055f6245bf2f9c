import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { decodeJwt } from 'jose';
import {
  CheckoutSessionSchema,
  ErrorResponseSchema,
  PublicProfileSchema,
  SubscriptionChangeResultSchema,
  SubscriptionStatusResponseSchema,
  UploadAcceptedSchema,
} from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildBilling } from '@msp/billing';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { startStripeStandIn, type StripeObject, type StripeStandIn } from '@msp/billing/stripe-stand-in';
import { Fleet } from './fleet.js';

const execFileAsync = promisify(execFile);
const fleet = new Fleet();
const WEB = 'http://web.test';
const PASSWORD = 'a long enough secret';
const PRICE = 'price_e2e_pro';
const FREE_TRACK_QUOTA = 1;
const mails: Array<{ to: string; subject: string; text: string }> = [];
let smtp: SMTPServer;
let stripe: StripeStandIn;
let dir: string;
let audio: string;

const billing = () => fleet.apps.get('billing') as Awaited<ReturnType<typeof buildBilling>>;
const media = () => fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface User {
  userId: number;
  username: string;
  accessToken: string;
  refreshToken: string;
}

/** AUTH-5 → the mailed link (AUTH-6) → AUTH-1 with the refresh token in the body. */
async function signedUpUser(email: string, displayName: string): Promise<User> {
  const before = mails.length;
  const reg = await fleet.fetch('/api/auth/register/local', json({ email, displayName, password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(reg.status).toBe(201);
  const { userId, username } = (await reg.json()) as { userId: number; username: string };
  const mail = await waitFor(() => mails.slice(before).find((m) => m.to === email && /verify/i.test(m.subject)), {
    timeoutMs: 10_000,
    message: `no mail for ${email}`,
  });
  const token = new URL(/https?:\/\/\S+\?token=[\w-]+/.exec(mail.text)![0]).searchParams.get('token')!;
  expect((await fleet.fetch('/api/auth/verify-email', json({ token }))).status).toBe(200);
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }, { 'x-refresh-token-delivery': 'body' }));
  expect(login.status).toBe(200);
  const body = (await login.json()) as { accessToken: string; refreshToken: string };
  return { userId, username, ...body };
}

async function subscriptionStatus(user: User) {
  const res = await fleet.fetch('/api/subscription/status', { headers: bearer(user.accessToken) });
  expect(res.status).toBe(200);
  return SubscriptionStatusResponseSchema.strict().parse(await res.json());
}

/** Posts raw bytes to SUB-5 through the gateway, as Stripe does. */
function postWebhook(body: string, signature: string | null) {
  return fleet.fetch('/api/webhook/stripe', {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === null ? {} : { 'stripe-signature': signature }) },
    body,
  });
}

async function deliver(event: StripeObject, options: { secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify(event, null, 2);
  return postWebhook(body, stripe.sign(body, options));
}

async function checkout(user: User) {
  const res = await fleet.fetch('/api/subscription/checkout', json({ plan: 'pro' }, bearer(user.accessToken)));
  expect(res.status, await res.clone().text()).toBe(200);
  return CheckoutSessionSchema.strict().parse(await res.json());
}

/** SUB-2, the customer pays, Stripe sends checkout.session.completed then customer.subscription.created. */
async function subscribe(user: User): Promise<StripeObject> {
  const { sessionId } = await checkout(user);
  const { session, subscription } = stripe.completeCheckout(sessionId);
  expect((await deliver(stripe.event('checkout.session.completed', session))).status).toBe(200);
  expect((await deliver(stripe.event('customer.subscription.created', subscription))).status).toBe(200);
  await waitFor(async () => (await subscriptionStatus(user)).status === 'active', { timeoutMs: 10_000, message: `user ${user.userId} not active` });
  return subscription;
}

function upload(user: User, title: string): Promise<Response> {
  return readFile(audio).then((bytes) => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ title, genre: 'Electronic', uploadId: randomUUID() })) form.append(k, v);
    form.append('audioFile', new Blob([bytes]), 'tone.wav');
    return fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, {
      method: 'POST',
      headers: bearer(user.accessToken),
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
  });
}

async function finishedUpload(user: User, title: string): Promise<number> {
  const res = await upload(user, title);
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = UploadAcceptedSchema.parse(await res.json());
  await waitFor(
    async () => {
      const s = (await (await fleet.fetch(`/api/tracks/${id}/status`, { headers: bearer(user.accessToken) })).json()) as { status: string };
      if (s.status === 'FAILED') throw new Error('upload failed');
      return s.status === 'FINISHED';
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `track ${id} did not finish` },
  );
  return id;
}

async function publicTier(user: User): Promise<string> {
  const res = await fleet.fetch(`/api/users/username/${user.username}`);
  expect(res.status).toBe(200);
  return PublicProfileSchema.parse(await res.json()).tier;
}

async function refresh(user: User): Promise<string> {
  const res = await fleet.fetch('/api/auth/refreshtoken', json({ refreshToken: user.refreshToken }, { 'x-refresh-token-delivery': 'body' }));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { accessToken: string; refreshToken: string; user: { tier: string } };
  user.accessToken = body.accessToken;
  user.refreshToken = body.refreshToken;
  return String(decodeJwt(body.accessToken).tier);
}

const download = (user: User, trackId: number) => fleet.fetch(`/api/tracks/${trackId}/download`, { headers: bearer(user.accessToken) });

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void PostalMime.parse(Buffer.concat(chunks)).then((m) => {
          for (const r of session.envelope.rcptTo) mails.push({ to: r.address.toLowerCase(), subject: m.subject ?? '', text: m.text ?? '' });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  stripe = await startStripeStandIn({ secretKey: 'sk_test_e2e_billing', webhookSecret: 'whsec_e2e_billing' });
  await fleet.start(
    {},
    {
      identity: {
        WEB_BASE_URL: WEB,
        SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`,
        MAIL_POLL_MS: '100',
      },
      billing: { ...stripe.billingEnv(), STRIPE_PRICE_ID: PRICE, WEB_BASE_URL: WEB, WEBHOOK_POLL_MS: '200' },
      catalog: { FREE_TRACK_QUOTA: String(FREE_TRACK_QUOTA), UPLOAD_WAIT_MS: '20000' },
      'media-processing': { JOB_POLL_MS: '200' },
    },
  );
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-billing-'));
  audio = path.join(dir, 'tone.wav');
  await execFileAsync(media().media.ffmpeg.path, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=8000:duration=2',
    '-y',
    audio,
  ]);
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await stripe?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('SUB-2 → SUB-5 → Pro everywhere (R17, R12)', () => {
  let ann: User;
  let subscription: StripeObject;
  const tracks: number[] = [];

  it('starts FREE: one track fills the free quota, TRK-19 needs Pro', async () => {
    ann = await signedUpUser('ann-billing@example.com', 'Ann Billing');
    tracks.push(await finishedUpload(ann, 'Free one'));
    const over = await upload(ann, 'Over quota');
    expect(over.status).toBe(403);
    expect(ErrorResponseSchema.parse(await over.json())).toMatchObject({
      code: 'UPLOAD_QUOTA_EXCEEDED',
      message: expect.stringContaining('out of free tracks'),
    });
    expect(ErrorResponseSchema.parse(await (await download(ann, tracks[0]!)).json()).code).toBe('PRO_REQUIRED');
    expect(await subscriptionStatus(ann)).toMatchObject({ status: 'cancelled', plan: 'free', tier: 'FREE' });
  }, 90_000);

  it("SUB-2 opens a checkout session the stand-in records for the user's customer, price and return URLs", async () => {
    const { sessionId, checkoutUrl } = await checkout(ann);
    expect(checkoutUrl).toContain(sessionId);
    const recorded = stripe.requestsTo('POST', '/v1/checkout/sessions').at(-1)!;
    expect(recorded.body).toMatchObject({
      mode: 'subscription',
      customer: stripe.customerOfUser(ann.userId)!.id,
      client_reference_id: String(ann.userId),
      line_items: [{ price: PRICE, quantity: '1' }],
      success_url: `${WEB}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${WEB}/checkout/cancel`,
    });
    const { session, subscription: sub } = stripe.completeCheckout(sessionId);
    subscription = sub;
    expect((await deliver(stripe.event('checkout.session.completed', session))).status).toBe(200);
    expect((await deliver(stripe.event('customer.subscription.created', subscription))).status).toBe(200);
  });

  it('SUB-1 answers active/pro/PRO; USR-15 shows PRO; the next AUTH-2 token carries PRO', async () => {
    const status = await waitFor(
      async () => {
        const s = await subscriptionStatus(ann);
        return s.status === 'active' ? s : undefined;
      },
      { timeoutMs: 10_000, message: 'subscription not active' },
    );
    expect(status).toMatchObject({ status: 'active', plan: 'pro', tier: 'PRO', cancelAtPeriodEnd: false });
    expect(status.currentPeriodEnd).toBeGreaterThan(Date.now() / 1000);
    await waitFor(async () => (await publicTier(ann)) === 'PRO', { timeoutMs: 15_000, message: 'USR-15 not PRO' });
    expect(await refresh(ann)).toBe('PRO');
  }, 60_000);

  it('lets the Pro user upload past the free quota and use TRK-19', async () => {
    await waitFor(async () => (await download(ann, tracks[0]!)).status === 200, { timeoutMs: 15_000, message: 'TRK-19 still refused' });
    const res = await download(ann, tracks[0]!);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.wav"$/);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('RIFF');
    tracks.push(await finishedUpload(ann, 'Pro two'));
  }, 90_000);

  it('SUB-3 sets cancelAtPeriodEnd through Stripe and keeps PRO; SUB-4 clears it', async () => {
    const cancelled = await fleet.fetch('/api/subscription/cancel', { method: 'POST', headers: bearer(ann.accessToken) });
    expect(cancelled.status).toBe(200);
    expect(SubscriptionChangeResultSchema.strict().parse(await cancelled.json())).toMatchObject({ status: 'active', tier: 'PRO', cancelAtPeriodEnd: true });
    expect(stripe.subscriptions.get(subscription.id)!.cancel_at_period_end).toBe(true);
    expect(await subscriptionStatus(ann)).toMatchObject({ tier: 'PRO', cancelAtPeriodEnd: true });
    const renewed = await fleet.fetch('/api/subscription/renew', { method: 'POST', headers: bearer(ann.accessToken) });
    expect(renewed.status).toBe(200);
    expect(SubscriptionChangeResultSchema.strict().parse(await renewed.json())).toMatchObject({ tier: 'PRO', cancelAtPeriodEnd: false });
    expect(stripe.subscriptions.get(subscription.id)!.cancel_at_period_end).toBe(false);
  });

  it('invoice.payment_failed → past_due, still PRO', async () => {
    const pastDue = stripe.updateSubscription(subscription.id, { status: 'past_due' });
    expect((await deliver(stripe.event('invoice.payment_failed', stripe.invoiceFor(pastDue, 'open')))).status).toBe(200);
    await waitFor(async () => (await subscriptionStatus(ann)).status === 'past_due', { timeoutMs: 10_000 });
    expect(await subscriptionStatus(ann)).toMatchObject({ status: 'past_due', plan: 'pro', tier: 'PRO' });
    expect((await download(ann, tracks[0]!)).status).toBe(200);
  });

  it('customer.subscription.deleted → cancelled and FREE: uploads over the quota refused, tracks kept', async () => {
    const ended = stripe.updateSubscription(subscription.id, { status: 'canceled' });
    expect((await deliver(stripe.event('customer.subscription.deleted', ended))).status).toBe(200);
    await waitFor(async () => (await subscriptionStatus(ann)).status === 'cancelled', { timeoutMs: 10_000 });
    expect(await subscriptionStatus(ann)).toMatchObject({ status: 'cancelled', plan: 'free', tier: 'FREE' });
    await waitFor(async () => (await publicTier(ann)) === 'FREE', { timeoutMs: 15_000, message: 'USR-15 still PRO' });
    await waitFor(async () => (await download(ann, tracks[0]!)).status === 403, { timeoutMs: 15_000, message: 'TRK-19 still allowed' });
    expect(await refresh(ann)).toBe('FREE');
    const over = await upload(ann, 'After downgrade');
    expect(over.status).toBe(403);
    expect(ErrorResponseSchema.parse(await over.json()).code).toBe('UPLOAD_QUOTA_EXCEEDED');
    const mine = (await (await fleet.fetch('/api/users/me/tracks', { headers: bearer(ann.accessToken) })).json()) as { content: Array<{ id: number }> };
    expect(mine.content.map((t) => t.id).sort()).toEqual([...tracks].sort());
  }, 60_000);
});

describe('SUB-5 webhook through the gateway', () => {
  let bea: User;
  let subscription: StripeObject;

  beforeAll(async () => {
    bea = await signedUpUser('bea-billing@example.com', 'Bea Billing');
    subscription = await subscribe(bea);
  }, 60_000);

  const storedEvents = () => billing().infra.prisma.providerEvent.count();

  it('refuses a body changed by one byte, a wrong secret and a timestamp older than 300 s with 400, storing nothing', async () => {
    const event = stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancel_at_period_end: true }));
    const body = JSON.stringify(event);
    const changed = body.replace('"cancel_at_period_end":true', '"cancel_at_period_end":trua');
    expect(changed.length).toBe(body.length);
    const before = await storedEvents();
    const answers = [
      await postWebhook(changed, stripe.sign(body)),
      await deliver(event, { secret: 'whsec_not_ours' }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      await postWebhook(body, null),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(ErrorResponseSchema.parse(await res.json())).toMatchObject({ code: 'INVALID_SIGNATURE', path: '/api/webhook/stripe' });
    }
    expect(await storedEvents()).toBe(before);
    expect((await subscriptionStatus(bea)).cancelAtPeriodEnd).toBe(false);
  });

  it('answers 200 to an unknown event type', async () => {
    const before = await storedEvents();
    const res = await deliver(stripe.event('payout.paid', { id: 'po_1', object: 'payout' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Event type payout.paid is not used; ignored.' });
    expect(await storedEvents()).toBe(before);
  });

  it('applies the same event once, and drops an older updated event after a newer one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const newer = stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancel_at_period_end: true }), {
      created: now + 10,
    });
    const older = stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancel_at_period_end: false }), {
      created: now + 5,
    });
    expect((await deliver(newer)).status).toBe(200);
    await waitFor(async () => (await subscriptionStatus(bea)).cancelAtPeriodEnd, { timeoutMs: 10_000 });
    const twice = await deliver(newer);
    expect(twice.status).toBe(200);
    expect(await billing().infra.prisma.providerEvent.count({ where: { id: newer.id } })).toBe(1);
    expect((await deliver(older)).status).toBe(200);
    await waitFor(async () => (await billing().infra.prisma.providerEvent.findUnique({ where: { id: older.id } }))?.processedAt != null);
    expect(await subscriptionStatus(bea)).toMatchObject({ status: 'active', tier: 'PRO', cancelAtPeriodEnd: true });
  });

  it('applies an event received just before billing restarts after the restart, once', async () => {
    await billing().webhookWorker.stop();
    const ended = stripe.event('customer.subscription.deleted', stripe.updateSubscription(subscription.id, { status: 'canceled' }), {
      created: Math.floor(Date.now() / 1000) + 20,
    });
    expect((await deliver(ended)).status).toBe(200);
    expect((await billing().infra.prisma.providerEvent.findUnique({ where: { id: ended.id } }))?.processedAt).toBeNull();
    await fleet.stopService('billing');
    await fleet.startService('billing');
    await waitFor(async () => (await subscriptionStatus(bea)).status === 'cancelled', { timeoutMs: 10_000, message: 'not applied after the restart' });
    expect(await billing().infra.prisma.providerEvent.findUnique({ where: { id: ended.id } })).toMatchObject({ outcome: 'applied', attempts: 1 });
    const tierEvents = (await billing().infra.prisma.outboxEvent.findMany({ where: { type: 'billing.subscription.tier-changed.v1' } }))
      .map((e) => (e.payload as { data: { userId: number; tier: string } }).data)
      .filter((d) => d.userId === bea.userId);
    expect(tierEvents.map((d) => d.tier)).toEqual(['PRO', 'FREE']);
    await waitFor(async () => (await publicTier(bea)) === 'FREE', { timeoutMs: 15_000, message: 'identity still PRO' });
  }, 30_000);
});

describe('SUB-2, SUB-3, SUB-4 and SUB-5 refusals', () => {
  let cyd: User;

  beforeAll(async () => {
    cyd = await signedUpUser('cyd-billing@example.com', 'Cyd Billing');
  }, 30_000);

  it('SUB-3 and SUB-4 without a subscription answer 409 SUBSCRIPTION_STATE_CONFLICT', async () => {
    for (const url of ['/api/subscription/cancel', '/api/subscription/renew']) {
      const res = await fleet.fetch(url, { method: 'POST', headers: bearer(cyd.accessToken) });
      expect(res.status).toBe(409);
      expect(ErrorResponseSchema.parse(await res.json()).code).toBe('SUBSCRIPTION_STATE_CONFLICT');
    }
  });

  it('SUB-2 accepts a request without a body', async () => {
    const res = await fleet.fetch('/api/subscription/checkout', { method: 'POST', headers: bearer(cyd.accessToken) });
    expect(res.status).toBe(200);
    expect(CheckoutSessionSchema.strict().parse(await res.json()).sessionId).toMatch(/^cs_test_/);
  });

  it('answers bad input with a 4xx ErrorResponse, never 500', async () => {
    const cases: Array<[string, RequestInit, number]> = [
      ['/api/subscription/checkout', json({ plan: 'gold' }, bearer(cyd.accessToken)), 400],
      ['/api/subscription/checkout', json([1, 2], bearer(cyd.accessToken)), 400],
      ['/api/subscription/checkout', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(cyd.accessToken) }, body: '{"plan":' }, 400],
      ['/api/subscription/checkout', json({ plan: 'pro' }), 401],
      ['/api/subscription/cancel', { method: 'POST' }, 401],
      ['/api/subscription/renew', { method: 'POST', headers: { authorization: 'Bearer nope' } }, 401],
      ['/api/webhook/stripe', { method: 'POST', headers: { 'stripe-signature': 't=1,v1=00' }, body: 'not json at all' }, 400],
      ['/api/webhook/stripe', { method: 'POST', headers: { 'content-type': 'text/plain', 'stripe-signature': '' }, body: '' }, 400],
      ['/api/webhook/stripe', { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign('[]') }, body: '[]' }, 400],
      [
        '/api/webhook/stripe',
        { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign('{"id":') }, body: '{"id":' },
        400,
      ],
    ];
    for (const [url, init, status] of cases) {
      const res = await fleet.fetch(url, init);
      expect(res.status, `${url} ${String(init.body)}`).toBe(status);
      expect(ErrorResponseSchema.safeParse(await res.json()).success).toBe(true);
    }
  });
});
