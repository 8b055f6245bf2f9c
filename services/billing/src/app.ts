import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { BillingConfig } from './config.js';
import { StripeClient } from './modules/payments/stripe.client.js';
import { startUserDeletion } from './modules/deletion/user-deletion.consumer.js';
import { BillingDeletionRepository } from './modules/deletion/user-deletion.repository.js';
import { subscriptionsModule } from './modules/subscriptions/subscriptions.routes.js';
import { internalSubscriptionsModule } from './modules/subscriptions/internal.routes.js';
import { SubscriptionsRepository } from './modules/subscriptions/subscriptions.repository.js';
import { SubscriptionsService } from './modules/subscriptions/subscriptions.service.js';
import { SubscriptionSync } from './modules/subscriptions/subscription-sync.service.js';
import { WebhooksRepository } from './modules/webhooks/webhooks.repository.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';
import { WebhookWorker } from './modules/webhooks/webhook.worker.js';
import { webhooksModule } from './modules/webhooks/webhooks.routes.js';
import { startBillingExport } from './modules/export/export.consumer.js';

export { loadBillingConfig, type BillingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: BillingConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose } = await createServiceApp({
    service: 'billing',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  const stripe = new StripeClient(config);
  const subscriptionRows = new SubscriptionsRepository(infra.prisma);
  const deletionRows = new BillingDeletionRepository(infra.prisma);
  const sync = new SubscriptionSync(subscriptionRows, deletionRows);
  const subscriptions = new SubscriptionsService(subscriptionRows, sync, stripe);
  const webhookEvents = new WebhooksRepository(infra.prisma);
  const webhookWorker = stopOnClose(new WebhookWorker(webhookEvents, sync, app.log, config.WEBHOOK_POLL_MS, config.WEBHOOK_RETENTION_DAYS * 86_400_000));
  const webhooks = new WebhooksService(stripe, webhookEvents, () => webhookWorker.kick());

  await app.register(subscriptionsModule, { prefix: '/api', subscriptions });
  await app.register(webhooksModule, { prefix: '/api', webhooks });
  await app.register(internalSubscriptionsModule, { subscriptions });
  // ACC-1: billing's part of an account export (docs/account-control.md "Export").
  stopOnClose(await startBillingExport({ nc: infra.nc, db: infra.prisma, logger: app.log, storage: infra.storage }));
  stopOnClose(await startUserDeletion({ nc: infra.nc, db: infra.prisma, logger: app.log, stripe, repo: deletionRows }));
  webhookWorker.start();
  return Object.assign(app, { infra, webhookWorker });
}
