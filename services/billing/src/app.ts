import { fileURLToPath } from 'node:url';
import { createHttpApp } from '@msp/http';
import { startInfrastructure } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { BillingConfig } from './config.js';
import { subscriptionsModule } from './modules/subscriptions/subscriptions.routes.js';
import { SubscriptionsService } from './modules/subscriptions/subscriptions.service.js';

export { loadBillingConfig, type BillingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: BillingConfig, options: { logger?: boolean } = {}) {
  const readiness = {};
  const app = await createHttpApp({
    service: 'billing',
    readiness,
    logLevel: config.LOG_LEVEL,
    logger: options.logger === false ? false : undefined,
  });
  const infra = await startInfrastructure({
    service: 'billing',
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

  await app.register(subscriptionsModule, { prefix: '/api', subscriptions: new SubscriptionsService(infra.prisma) });
  return Object.assign(app, { infra });
}
