import { fileURLToPath } from 'node:url';
import { createHttpApp } from '@msp/http';
import { startInfrastructure } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { MessagingConfig } from './config.js';
import { startUserProjection } from './modules/users/users.consumer.js';
import { conversationsModule } from './modules/conversations/conversations.routes.js';
import { ConversationsService } from './modules/conversations/conversations.service.js';

export { loadMessagingConfig, type MessagingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: MessagingConfig, options: { logger?: boolean } = {}) {
  const readiness = {};
  const app = await createHttpApp({
    service: 'messaging',
    readiness,
    logLevel: config.LOG_LEVEL,
    logger: options.logger === false ? false : undefined,
  });
  const infra = await startInfrastructure({
    service: 'messaging',
    config,
    logger: app.log,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
  });
  Object.assign(readiness, infra.readiness);
  const projection = await startUserProjection(infra.nc, infra.prisma, app.log);
  // Consumers stop before the connections they use close.
  app.addHook('onClose', async () => {
    await projection.stop();
    await infra.close();
  });

  await app.register(conversationsModule, { prefix: '/api', conversations: new ConversationsService(infra.prisma) });
  return Object.assign(app, { infra });
}
