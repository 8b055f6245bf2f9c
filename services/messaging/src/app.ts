import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { MessagingConfig } from './config.js';
import { conversationsModule } from './modules/conversations/conversations.routes.js';
import { ConversationsService } from './modules/conversations/conversations.service.js';

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
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'messaging' }));

  await app.register(conversationsModule, { prefix: '/api', conversations: new ConversationsService(infra.prisma) });
  return Object.assign(app, { infra });
}
