import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ErrorResponseSchema } from '@msp/contracts';
import {
  AppGrantChanged,
  AppGrantRevoked,
  AppRegistered,
  AppSuspended,
  createEnvelope,
  ItemLiked,
  MessageSent,
  SubscriptionTierChanged,
  UserFollowed,
  type EventEnvelope,
} from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';
import { verifyWebhookSignature } from '../src/modules/webhooks/webhooks.signature.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const [OWNER, FAN, OTHER, STRANGER] = [81, 82, 83, 84];
const APP = 901;
const at = () => new Date().toISOString();

interface Received {
  path: string;
  raw: string;
  body: { id: string; type: string; created: string; data: Record<string, unknown> };
  signature: string | undefined;
  answered: number;
}

// The local receiver: answers `answer(path)` and records every request.
const received: Received[] = [];
let answer: (path: string) => number = () => 200;
let receiver: Server;
let base = '';

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const as = (userId?: number) => (userId === undefined ? {} : { 'x-user-id': String(userId) });
const api = (method: 'GET' | 'POST' | 'DELETE', url: string, userId?: number, payload?: object) =>
  app.inject({ method, url: `/api${url}`, headers: as(userId), ...(payload ? { payload } : {}) });

const snapshot = (suspended = false) => ({ appId: APP, clientId: 'app_test', ownerId: OWNER, name: 'Hooks', suspended, version: at() });
const like = (ownerId: number, trackId: number, likeCount: number) =>
  createEnvelope(ItemLiked, { userId: STRANGER, targetType: 'TRACK', targetId: trackId, ownerId, likeCount, at: at() });

async function createWebhook(path: string, events: string[]) {
  const res = await api('POST', `/apps/${APP}/webhooks`, OWNER, { url: `${base}${path}`, events });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; secret: string; url: string; events: string[]; status: string };
}

const okAt = (path: string) => received.filter((r) => r.path === path && r.answered === 200);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const status = answer(req.url ?? '');
      received.push({ path: req.url ?? '', raw, body: JSON.parse(raw), signature: req.headers['webhook-signature'] as string | undefined, answered: status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  env = await startServiceTestEnv('notification', migrations);
  app = await buildApp(
    loadNotificationConfig({
      ...env.env,
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '400',
      WEBHOOK_RETRY_WINDOW_MS: '6000',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_MS: '200',
    }),
    { logger: false },
  );
  await app.ready();
  await publish(createEnvelope(AppRegistered, snapshot()));
  await publish(createEnvelope(AppGrantChanged, { grantId: 'g-fan', appId: APP, userId: FAN, scopes: ['read', 'webhooks'], at: at() }));
  await publish(createEnvelope(AppGrantChanged, { grantId: 'g-other', appId: APP, userId: OTHER, scopes: ['read', 'engage'], at: at() }));
  await waitFor(async () => (await api('GET', `/apps/${APP}/webhooks`, OWNER)).statusCode === 200, { timeoutMs: 15_000 });
  await waitFor(async () => (await app.infra.prisma.webhookGrant.count({ where: { appId: APP } })) === 2, { timeoutMs: 15_000 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('APP-18 create a webhook', () => {
  it('answers the endpoint and its secret once; lists it without the secret (APP-19)', async () => {
    const created = await createWebhook('/create-test', ['track.liked']);
    expect(created).toMatchObject({ url: `${base}/create-test`, events: ['track.liked'], status: 'ACTIVE' });
    expect(created.secret).toMatch(/^whsec_/);
    const list = (await api('GET', `/apps/${APP}/webhooks`, OWNER)).json();
    const listed = list.content.find((w: { id: number }) => w.id === created.id);
    expect(listed).toBeDefined();
    expect(listed.secret).toBeUndefined();
    expect((await api('DELETE', `/apps/${APP}/webhooks/${created.id}`, OWNER)).statusCode).toBe(204);
  });

  it('documents APP-18…22 in the service OpenAPI', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).toEqual(expect.arrayContaining(['APP-18', 'APP-19', 'APP-20', 'APP-21', 'APP-22']));
    expect(doc.paths['/api/apps/{appId}/webhooks'].post.responses['201']).toBeDefined();
  });

  it('is the owner only: another user gets 404, no caller 401', async () => {
    const res = await api('POST', `/apps/${APP}/webhooks`, STRANGER, { url: `${base}/x`, events: ['track.liked'] });
    expect(res.statusCode).toBe(404);
    expect(ErrorResponseSchema.parse(res.json()).code).toBe('RESOURCE_NOT_FOUND');
    expect((await api('GET', `/apps/${APP}/webhooks`, STRANGER)).statusCode).toBe(404);
    expect((await api('GET', `/apps/${APP}/webhooks`)).statusCode).toBe(401);
  });

  it('refuses private addresses (only 127.0.0.1 in development), unknown and repeated events', async () => {
    for (const url of ['http://10.0.0.1/hook', 'http://[::1]:8080/hook', 'http://169.254.169.254/latest', 'http://127.0.0.2/hook', 'ftp://127.0.0.1/x']) {
      const res = await api('POST', `/apps/${APP}/webhooks`, OWNER, { url, events: ['track.liked'] });
      expect(res.statusCode, url).toBe(400);
      expect(ErrorResponseSchema.parse(res.json()).code).toBe('VALIDATION_FAILED');
    }
    expect((await api('POST', `/apps/${APP}/webhooks`, OWNER, { url: `${base}/x`, events: ['track.played'] })).statusCode).toBe(400);
    expect((await api('POST', `/apps/${APP}/webhooks`, OWNER, { url: `${base}/x`, events: ['track.liked', 'track.liked'] })).statusCode).toBe(400);
    expect((await api('POST', `/apps/${APP}/webhooks`, OWNER, { url: `${base}/x`, events: [] })).statusCode).toBe(400);
  });
});

describe('webhook deliveries (APP-21, APP-22)', () => {
  it('delivers signed events of the owner and of users who granted webhooks, once each and in order per resource', async () => {
    const hook = await createWebhook('/main', ['track.liked', 'user.followed', 'message.received', 'subscription.changed']);
    const events = [
      ...[1, 2, 3, 4, 5].map((n) => like(OWNER, 11, n)),
      ...[1, 2, 3].map((n) => like(FAN, 12, n)),
      like(OTHER, 13, 1), // OTHER granted no `webhooks`: not delivered
      createEnvelope(UserFollowed, { followerId: STRANGER, followeeId: FAN, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }),
      // message.received needs `messages` as well: FAN's is not delivered, the owner's is.
      createEnvelope(MessageSent, { messageId: 1, conversationId: 5, senderId: STRANGER, recipientId: FAN, content: 'x', renderings: {}, at: at() }),
      createEnvelope(MessageSent, { messageId: 2, conversationId: 6, senderId: STRANGER, recipientId: OWNER, content: 'y', renderings: {}, at: at() }),
      // subscription.changed: the owner's own only.
      createEnvelope(SubscriptionTierChanged, { userId: FAN, tier: 'PRO', status: 'active', version: 1, currentPeriodEnd: null }),
      createEnvelope(SubscriptionTierChanged, { userId: OWNER, tier: 'PRO', status: 'active', version: 1, currentPeriodEnd: null }),
    ];
    for (const e of events) await publish(e);
    await waitFor(() => okAt('/main').length >= 11, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    const got = okAt('/main');
    for (const r of got) expect(verifyWebhookSignature(hook.secret, r.raw, r.signature)).toBe(true);
    const ids = got.map((r) => r.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = [0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13].map((i) => events[i]!.id);
    expect(new Set(ids)).toEqual(new Set(expected));
    const likeCounts = (track: number) => got.filter((r) => r.body.type === 'track.liked' && r.body.data.trackId === track).map((r) => r.body.data.likeCount);
    expect(likeCounts(11)).toEqual([1, 2, 3, 4, 5]);
    expect(likeCounts(12)).toEqual([1, 2, 3]);
    expect(got.find((r) => r.body.id === events[0]!.id)!.body).toMatchObject({ type: 'track.liked', created: events[0]!.occurredAt });

    const log = (await api('GET', `/apps/${APP}/webhooks/${hook.id}/deliveries?size=100`, OWNER)).json();
    expect(log.totalElements).toBe(11);
    expect(log.content[0]).toMatchObject({ status: 'DELIVERED', responseCode: 200, attempts: 1 });
    expect(typeof log.content[0].latencyMs).toBe('number');
    await api('DELETE', `/apps/${APP}/webhooks/${hook.id}`, OWNER);
  }, 30_000);

  it('gets everything after an outage (5xx retried with backoff), in order, and redelivers on request', async () => {
    const hook = await createWebhook('/outage', ['track.liked']);
    let down = true;
    answer = (path) => (path === '/outage' && down ? 503 : 200);
    const events = [1, 2, 3, 4].map((n) => like(OWNER, 21, n));
    for (const e of events) await publish(e);
    await waitFor(() => received.filter((r) => r.path === '/outage' && r.answered === 503).length >= 3, { timeoutMs: 10_000 });
    const during = (await api('GET', `/apps/${APP}/webhooks/${hook.id}/deliveries`, OWNER)).json();
    expect(during.content.some((d: { status: string; responseCode: number | null }) => d.status === 'PENDING' && d.responseCode === 503)).toBe(true);
    down = false;
    await waitFor(() => okAt('/outage').length >= 4, { timeoutMs: 10_000 });
    const got = okAt('/outage');
    expect(got.map((r) => r.body.data.likeCount)).toEqual([1, 2, 3, 4]);
    for (const r of got) expect(verifyWebhookSignature(hook.secret, r.raw, r.signature)).toBe(true);

    const log = (await api('GET', `/apps/${APP}/webhooks/${hook.id}/deliveries`, OWNER)).json();
    const first = log.content.find((d: { eventId: string }) => d.eventId === events[0]!.id);
    expect(first).toMatchObject({ status: 'DELIVERED', responseCode: 200 });
    expect(first.attempts).toBeGreaterThan(1);

    // APP-22: the same body again (same id), as a new log entry.
    const redo = await api('POST', `/apps/${APP}/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, OWNER);
    expect(redo.statusCode, redo.body).toBe(202);
    expect(redo.json()).toMatchObject({ eventId: events[0]!.id, redeliveryOf: first.id, status: 'PENDING' });
    await waitFor(() => okAt('/outage').length >= 5, { timeoutMs: 10_000 });
    expect(okAt('/outage')[4]!.raw).toBe(got[0]!.raw);
    expect((await api('POST', `/apps/${APP}/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, STRANGER)).statusCode).toBe(404);
    expect((await api('POST', `/apps/${APP}/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, OWNER)).statusCode).toBe(404);
    await api('DELETE', `/apps/${APP}/webhooks/${hook.id}`, OWNER);
  }, 30_000);

  it('removes a subscription that answers 410 Gone', async () => {
    answer = (path) => (path === '/gone' ? 410 : 200);
    const hook = await createWebhook('/gone', ['track.liked']);
    await publish(like(OWNER, 31, 1));
    await waitFor(async () => (await app.infra.prisma.webhookEndpoint.count({ where: { id: hook.id } })) === 0, { timeoutMs: 10_000 });
    expect((await api('GET', `/apps/${APP}/webhooks/${hook.id}/deliveries`, OWNER)).statusCode).toBe(404);
  });

  it('disables an endpoint failing for the whole retry window and tells its owner (WEBHOOK_DISABLED notification)', async () => {
    answer = (path) => (path === '/broken' ? 500 : 200);
    const hook = await createWebhook('/broken', ['track.liked']);
    await publish(like(OWNER, 41, 1));
    await waitFor(async () => (await app.infra.prisma.webhookEndpoint.findUnique({ where: { id: hook.id } }))?.status === 'DISABLED', {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    const list = (await api('GET', `/apps/${APP}/webhooks`, OWNER)).json();
    expect(list.content.find((w: { id: number }) => w.id === hook.id)).toMatchObject({ status: 'DISABLED' });
    expect(await app.infra.prisma.outboxEvent.count({ where: { type: 'notification.webhook.disabled.v1' } })).toBe(1);
    const log = (await api('GET', `/apps/${APP}/webhooks/${hook.id}/deliveries`, OWNER)).json();
    expect(log.content[0]).toMatchObject({ status: 'FAILED', responseCode: 500 });
    expect((await api('POST', `/apps/${APP}/webhooks/${hook.id}/deliveries/${log.content[0].id}/redeliver`, OWNER)).statusCode).toBe(403);
    // The owner's in-app notice (NOT-1), naming the webhook's URL; it reaches sockets and push like any notification.
    const notice = await waitFor(
      async () =>
        ((await api('GET', '/notifications', OWNER)).json().content as { type: string; targetTitle: string | null }[]).find(
          (n) => n.type === 'WEBHOOK_DISABLED',
        ),
      { timeoutMs: 10_000, message: 'no WEBHOOK_DISABLED notification' },
    );
    expect(notice).toMatchObject({
      type: 'WEBHOOK_DISABLED',
      user: { id: OWNER },
      resource: { resourceType: 'USER', resourceId: OWNER },
      targetTitle: `${base}/broken`,
      targetUrl: null,
    });
  }, 30_000);

  it('stops for a revoked grant and a suspended app', async () => {
    answer = () => 200;
    await createWebhook('/revoked', ['track.liked']);
    await publish(createEnvelope(AppGrantRevoked, { grantId: 'g-fan', appId: APP, userId: FAN, reason: 'user-revoked', at: at() }));
    await waitFor(async () => (await app.infra.prisma.webhookGrant.findUnique({ where: { grantId: 'g-fan' } }))?.revoked === true, { timeoutMs: 10_000 });
    await publish(like(FAN, 51, 1));
    const marker = like(OWNER, 52, 1);
    await publish(marker);
    await waitFor(() => okAt('/revoked').some((r) => r.body.id === marker.id), { timeoutMs: 10_000 });
    expect(okAt('/revoked').map((r) => r.body.data.trackId)).toEqual([52]);

    await publish(createEnvelope(AppSuspended, snapshot(true)));
    await waitFor(async () => (await app.infra.prisma.webhookApp.findUnique({ where: { appId: APP } }))?.suspended === true, { timeoutMs: 10_000 });
    await publish(like(OWNER, 53, 1));
    await new Promise((r) => setTimeout(r, 1000));
    expect(okAt('/revoked').map((r) => r.body.data.trackId)).toEqual([52]);
    expect((await api('POST', `/apps/${APP}/webhooks`, OWNER, { url: `${base}/x`, events: ['track.liked'] })).statusCode).toBe(403);
  }, 30_000);
});
