import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserCountProjections, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { NotificationConfig } from './config.js';
import { startActivityConsumers } from './modules/activity/activity.consumers.js';
import { startRealtimeDelivery } from './modules/delivery/realtime-delivery.consumers.js';
import { BadgeCounter } from './modules/notifications/badge.counter.js';
import { startDedupSweeper } from './modules/notifications/dedup.sweeper.js';
import { NotificationCreator } from './modules/notifications/notification.creator.js';
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
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'notification' }));
  stopOnClose(
    await startUserCountProjections({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'notification', followerCounts: true, trackCounts: true }),
  );
  for (const c of await startActivityConsumers({ ...deps, creator: new NotificationCreator(notificationRows) })) stopOnClose(c);
  for (const c of await startRealtimeDelivery({ ...deps, fanout: realtime.fanout, badge })) stopOnClose(c);
  stopOnClose(startDedupSweeper(notificationRows, app.log));

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
  return Object.assign(app, { infra, realtime, vapidPublicKey: vapid.publicKey });
}
