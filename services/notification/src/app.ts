import { fileURLToPath } from 'node:url';
import { createHttpApp } from '@msp/http';
import { startInfrastructure } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { NotificationConfig } from './config.js';
import { notificationsModule } from './modules/notifications/notifications.routes.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { preferencesModule } from './modules/preferences/preferences.routes.js';
import { PreferencesService } from './modules/preferences/preferences.service.js';

export { loadNotificationConfig, type NotificationConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: NotificationConfig, options: { logger?: boolean } = {}) {
  const readiness = {};
  const app = await createHttpApp({
    service: 'notification',
    readiness,
    logLevel: config.LOG_LEVEL,
    logger: options.logger === false ? false : undefined,
  });
  const infra = await startInfrastructure({
    service: 'notification',
    config,
    logger: app.log,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
  });
  Object.assign(readiness, infra.readiness);
  // No consumers yet; they stop here, before the connections they use close.
  app.addHook('onClose', async () => {
    await infra.close();
  });

  // Static /notifications/settings and /notifications/unread-count live side by side.
  await app.register(preferencesModule, { prefix: '/api', preferences: new PreferencesService(infra.prisma) });
  await app.register(notificationsModule, { prefix: '/api', notifications: new NotificationsService(infra.prisma) });
  return Object.assign(app, { infra });
}
