import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserCountProjections, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { NotificationConfig } from './config.js';
import { NotificationCreator, startActivityConsumers } from './modules/activity/activity.consumers.js';
import { startRealtimeDelivery } from './modules/delivery/realtime-delivery.consumers.js';
import { BadgeCounter } from './modules/notifications/badge.counter.js';
import { startUserDeletion } from './modules/deletion/user-deletion.consumer.js';
import { startDedupSweeper } from './modules/notifications/dedup.sweeper.js';
import { notificationsModule } from './modules/notifications/notifications.routes.js';
import { NotificationsRepository } from './modules/notifications/notifications.repository.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { preferencesModule } from './modules/preferences/preferences.routes.js';
import { PreferencesService } from './modules/preferences/preferences.service.js';
import { PreferencesRepository } from './modules/preferences/preferences.repository.js';
import { deviceTokensModule } from './modules/push/device-tokens.routes.js';
import { DeviceTokensRepository } from './modules/push/device-tokens.repository.js';
import { DeviceTokensService } from './modules/push/device-tokens.service.js';
import { startPushConsumer } from './modules/push/push.consumer.js';
import { generateVapidKeys, HttpMobilePushProvider, WebPushSender } from './modules/push/push.providers.js';
import { setupRealtime } from './modules/realtime/realtime.module.js';
import { startWebhookConsumers } from './modules/webhooks/webhooks.consumers.js';
import { startWebhookDisabledNotices } from './modules/webhooks/webhook-disabled.consumer.js';
import { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.js';
import { WebhooksRepository } from './modules/webhooks/webhooks.repository.js';
import { webhooksModule } from './modules/webhooks/webhooks.routes.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';
import { startNotificationExport } from './modules/export/export.consumer.js';
import { startExportReadyNotices } from './modules/export/export-ready.consumer.js';

export { loadNotificationConfig, type NotificationConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

/** The database a URL names: the badge cache's namespace (replicas share it, test runs do not). */
function databaseName(url: string): string {
  return new URL(url).pathname.replace(/^\/+/, '') || 'default';
}

export async function buildApp(config: NotificationConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose, addReadiness } = await createServiceApp({
    service: 'notification',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  const endpoints = { allowPrivate: config.WEB_PUSH_ALLOW_PRIVATE_ENDPOINTS };
  const badge = new BadgeCounter(infra.redis, databaseName(config.DATABASE_URL), config.BADGE_TTL_SECONDS, (obj, msg) => app.log.warn(obj, msg));
  const notificationRows = new NotificationsRepository(infra.prisma);
  const deviceTokens = new DeviceTokensRepository(infra.prisma);
  const notifications = new NotificationsService(notificationRows, badge);
  // Static /notifications/settings and /notifications/unread-count live side by side.
  await app.register(preferencesModule, { prefix: '/api', preferences: new PreferencesService(new PreferencesRepository(infra.prisma)) });
  await app.register(notificationsModule, { prefix: '/api', notifications });
  await app.register(deviceTokensModule, { prefix: '/api', deviceTokens: new DeviceTokensService(deviceTokens, endpoints) });
  const realtime = await setupRealtime({ app, config, nc: infra.nc, js: infra.js, redis: infra.redis, stopOnClose, addReadiness });

  const deps = { nc: infra.nc, prisma: infra.prisma, logger: app.log };
  // The deletion consumer (modules/deletion) removes the user copy last.
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'notification', keepDeletedRow: true }));
  // ACC-1: notification's part of an account export (docs/account-control.md "Export").
  stopOnClose(await startNotificationExport({ nc: infra.nc, db: infra.prisma, logger: app.log, storage: infra.storage }));
  stopOnClose(
    await startUserCountProjections({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'notification', followerCounts: true, trackCounts: true }),
  );
  for (const c of await startActivityConsumers({ ...deps, creator: new NotificationCreator(notificationRows) })) stopOnClose(c);
  stopOnClose(await startExportReadyNotices({ ...deps, creator: new NotificationCreator(notificationRows) }));
  for (const c of await startRealtimeDelivery({ ...deps, fanout: realtime.fanout, badge })) stopOnClose(c);
  stopOnClose(startDedupSweeper(notificationRows, app.log));
  stopOnClose(await startUserDeletion({ nc: infra.nc, db: infra.prisma, logger: app.log, badge }));

  const generated = config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY ? null : generateVapidKeys();
  if (generated) app.log.warn('no VAPID keys configured: generated a pair for this process (development only)');
  const vapid = {
    subject: config.VAPID_SUBJECT,
    publicKey: generated ? generated.publicKey : config.VAPID_PUBLIC_KEY!,
    privateKey: generated ? generated.privateKey : config.VAPID_PRIVATE_KEY!,
  };
  const push = {
    web: new WebPushSender(vapid, config.PUSH_TIMEOUT_MS, app.log),
    mobile: config.MOBILE_PUSH_URL ? new HttpMobilePushProvider(config.MOBILE_PUSH_URL, config.PUSH_TIMEOUT_MS, app.log) : null,
  };
  stopOnClose(await startPushConsumer({ ...deps, ...push, tokens: deviceTokens, concurrency: config.PUSH_CONCURRENCY, endpoints }));

  // Webhooks (APP-18…22, docs/developer-platform.md): consumers queue deliveries, the dispatcher sends them.
  const webhookRows = new WebhooksRepository(infra.prisma);
  const webhookPolicy = { production: config.NODE_ENV === 'production' };
  const dispatcher = new WebhookDispatcher(
    webhookRows,
    {
      backoffBaseMs: config.WEBHOOK_BACKOFF_BASE_MS,
      backoffMaxMs: config.WEBHOOK_BACKOFF_MAX_MS,
      retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      connectionsPerOrigin: config.WEBHOOK_CONNECTIONS_PER_ORIGIN,
      pollMs: config.WEBHOOK_POLL_MS,
      logDays: config.WEBHOOK_LOG_DAYS,
      databaseUrl: config.DATABASE_URL,
      policy: webhookPolicy,
    },
    app.log,
  );
  await app.register(webhooksModule, {
    prefix: '/api',
    webhooks: new WebhooksService(webhookRows, webhookPolicy, config.WEBHOOK_LOG_DAYS, () => dispatcher.wake()),
  });
  for (const c of await startWebhookConsumers(deps)) stopOnClose(c);
  stopOnClose(await startWebhookDisabledNotices({ ...deps, creator: new NotificationCreator(notificationRows) }));
  await dispatcher.start();
  stopOnClose(dispatcher);
  return Object.assign(app, { infra, realtime, vapidPublicKey: vapid.publicKey });
}
