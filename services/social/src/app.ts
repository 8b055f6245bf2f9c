import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { SocialConfig } from './config.js';
import { followsModule } from './modules/follows/follows.routes.js';
import { FollowsService } from './modules/follows/follows.service.js';

export { loadSocialConfig, type SocialConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: SocialConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose } = await createServiceApp({
    service: 'social',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'social' }));

  await app.register(followsModule, { prefix: '/api', follows: new FollowsService(infra.prisma) });
  return Object.assign(app, { infra });
}
