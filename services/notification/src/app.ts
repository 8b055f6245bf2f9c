import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { NotificationConfig } from './config.js';
import { notificationsModule } from './modules/notifications/notifications.routes.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { preferencesModule } from './modules/preferences/preferences.routes.js';
import { PreferencesService } from './modules/preferences/preferences.service.js';
import { setupRealtime } from './modules/realtime/realtime.module.js';

export { loadNotificationConfig, type NotificationConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: NotificationConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose, addReadiness } = await createServiceApp({
    service: 'notification',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  // Static /notifications/settings and /notifications/unread-count live side by side.
  await app.register(preferencesModule, { prefix: '/api', preferences: new PreferencesService(infra.prisma) });
  await app.register(notificationsModule, { prefix: '/api', notifications: new NotificationsService(infra.prisma) });
  const realtime = await setupRealtime({ app, config, nc: infra.nc, js: infra.js, redis: infra.redis, stopOnClose, addReadiness });
  return Object.assign(app, { infra, realtime });
}
