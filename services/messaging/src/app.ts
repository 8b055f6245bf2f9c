import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserCountProjections, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { MessagingConfig } from './config.js';
import { CatalogClient } from '@msp/runtime';
import { conversationsModule } from './modules/conversations/conversations.routes.js';
import { ConversationsRepository } from './modules/conversations/conversations.repository.js';
import { ConversationsService } from './modules/conversations/conversations.service.js';
import { MessagesRepository } from './modules/messages/messages.repository.js';
import { MessagesService } from './modules/messages/messages.service.js';
import { startBansConsumer, startRelationsConsumer } from './modules/relations/relations.consumers.js';
import { startUserDeletion } from './modules/deletion/user-deletion.consumer.js';
import { startMessagingExport } from './modules/export/export.consumer.js';

export { loadMessagingConfig, type MessagingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: MessagingConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose } = await createServiceApp({
    service: 'messaging',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });
  const consumerDeps = { nc: infra.nc, db: infra.prisma, logger: app.log };
  // The deletion consumer (modules/deletion) removes the user copy last, after their participation.
  stopOnClose(await startUserProjection({ ...consumerDeps, service: 'messaging', keepDeletedRow: true }));
  stopOnClose(await startUserCountProjections({ ...consumerDeps, service: 'messaging', followerCounts: true, trackCounts: true }));
  stopOnClose(await startRelationsConsumer(consumerDeps));
  stopOnClose(await startBansConsumer(consumerDeps));
  stopOnClose(await startUserDeletion(consumerDeps));
  // ACC-1: messaging's part of an account export (docs/account-control.md "Export").
  stopOnClose(await startMessagingExport({ ...consumerDeps, storage: infra.storage }));

  const catalog = new CatalogClient(config.CATALOG_URL, config.CATALOG_TIMEOUT_MS, app.log);
  const conversationRows = new ConversationsRepository(infra.prisma);
  const conversations = new ConversationsService(conversationRows);
  const messages = new MessagesService(new MessagesRepository(infra.prisma), conversationRows, catalog);
  await app.register(conversationsModule, { prefix: '/api', conversations, messages });
  return Object.assign(app, { infra });
}
