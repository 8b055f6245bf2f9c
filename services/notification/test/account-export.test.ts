import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { NotificationSchema, pageSchema } from '@msp/contracts';
import { createEnvelope, UserExportClosed, UserExportReady, UserExportRequested, UserRegistered, type EventEnvelope } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';

/**
 * ACC-1 (docs/account-control.md "Export") in notification: its part of the export (the user's
 * notifications and preferences, never a push token) and the EXPORT_READY notification.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NotificationPage = pageSchema(NotificationSchema.strict());
const USER = 91;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const list = async (userId: number) =>
  NotificationPage.parse((await app.inject({ method: 'GET', url: '/api/notifications', headers: { 'x-user-id': String(userId) } })).json()).content;

beforeAll(async () => {
  env = await startServiceTestEnv('notification_account_export', migrations);
  app = await buildApp(loadNotificationConfig({ ...env.env }), { logger: false });
  await app.ready();
  await publish(
    createEnvelope(UserRegistered, {
      userId: USER,
      username: 'xena',
      displayName: 'Xena',
      avatarUrl: null,
      tier: 'FREE',
      role: 'LISTENER',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('ACC-1 request an export of my data (notification)', () => {
  it("writes notification's part, publishes its part-ready event, and removes the part when the export closes", async () => {
    // A webhook of the user's app with one logged delivery, and another owner's webhook (not exported).
    const db = app.infra.prisma;
    await db.$executeRawUnsafe(`INSERT INTO webhook_apps (app_id, owner_id, name, version) VALUES (9101, ${USER}, 'x-app', now()), (9102, 92, 'y-app', now())`);
    await db.$executeRawUnsafe(
      `INSERT INTO webhook_endpoints (id, app_id, owner_id, url, events, secret) VALUES
         (9111, 9101, ${USER}, 'https://x.example/hook', '{track.liked}', 'whsec_never_exported'), (9112, 9102, 92, 'https://y.example/hook', '{}', 's')`,
    );
    const eventId = 'a7d1c0de-5b6f-4c1e-9f00-000000009111';
    await db.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, resource_key, body, status, attempts, response_code)
       VALUES (gen_random_uuid(), 9111, $1::uuid, 'track.liked', 'track:7', '{"id":"x"}', 'DELIVERED', 1, 204),
              (gen_random_uuid(), 9112, gen_random_uuid(), 'track.liked', 'track:8', '{"id":"y"}', 'DELIVERED', 1, 204)`,
      eventId,
    );
    const exportId = '3f1c2a52-8d4e-4e59-9a57-2b1f0d6c7a10';
    await publish(createEnvelope(UserExportRequested, { exportId, userId: USER, requestedAt: new Date().toISOString() }));
    const key = `exports/${exportId}/parts/notification.json`;
    await waitFor(async () => (await app.infra.storage.stat(key)) !== null, { message: 'no part written' });
    const part = await waitFor(
      async () =>
        (await app.infra.prisma.outboxEvent.findMany({ where: { type: 'notification.user.export-part-ready.v1' } }))[0]?.payload as
          { data: { exportId: string; objectKey: string; url: string; files: unknown[] } } | undefined,
      { message: 'no part-ready event' },
    );
    expect(part.data).toMatchObject({ exportId, objectKey: key, files: [] });
    const res = await fetch(part.data.url);
    const text = await res.text();
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json).toMatchObject({ service: 'notification', userId: USER, exportId, notifications: [], devices: [] });
    // The webhooks of the user's apps and their delivery log (APP-19, APP-21), never a secret.
    expect(json.webhooks).toEqual([
      expect.objectContaining({ id: 9111, appId: 9101, url: 'https://x.example/hook', events: ['track.liked'], status: 'ACTIVE' }),
    ]);
    expect(json.webhookDeliveries).toEqual([
      expect.objectContaining({ webhookId: 9111, eventId, eventType: 'track.liked', status: 'DELIVERED', responseCode: 204, body: '{"id":"x"}' }),
    ]);
    expect(text).not.toContain('whsec_never_exported');
    await publish(createEnvelope(UserExportClosed, { exportId, userId: USER, status: 'READY' }));
    await waitFor(async () => (await app.infra.storage.stat(key)) === null, { message: 'part not removed' });
  });

  it('turns identity.user.export-ready.v1 into one EXPORT_READY notification to the user', async () => {
    const ready = createEnvelope(UserExportReady, {
      exportId: '0b9e8c1e-6a53-4f7e-8f0e-3c2a1d4b5e6f',
      userId: USER,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await publish(ready);
    const notices = await waitFor(
      async () => {
        const found = (await list(USER)).filter((n) => n.type === 'EXPORT_READY');
        return found.length > 0 ? found : undefined;
      },
      { message: 'no EXPORT_READY' },
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ type: 'EXPORT_READY', user: { id: USER }, resource: { resourceType: 'USER', resourceId: USER } });
  });
});
