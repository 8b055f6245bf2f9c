import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { BillingConfig } from './config.js';
import { subscriptionsModule } from './modules/subscriptions/subscriptions.routes.js';
import { internalSubscriptionsModule } from './modules/subscriptions/internal.routes.js';
import { SubscriptionsService } from './modules/subscriptions/subscriptions.service.js';

export { loadBillingConfig, type BillingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: BillingConfig, options: { logger?: boolean } = {}) {
  const { app, infra } = await createServiceApp({
    service: 'billing',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  const subscriptions = new SubscriptionsService(infra.prisma);
  await app.register(subscriptionsModule, { prefix: '/api', subscriptions });
  await app.register(internalSubscriptionsModule, { subscriptions });
  return Object.assign(app, { infra });
}
