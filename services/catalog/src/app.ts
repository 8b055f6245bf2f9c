import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import { startSocialSync } from './modules/social-sync/social-sync.consumer.js';
import type { CatalogConfig } from './config.js';
import { genresModule } from './modules/genres/genres.routes.js';
import { tracksModule } from './modules/tracks/tracks.routes.js';
import { TracksService } from './modules/tracks/tracks.service.js';

export { loadCatalogConfig, type CatalogConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: CatalogConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose } = await createServiceApp({
    service: 'catalog',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'catalog' }));
  stopOnClose(await startSocialSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));

  await app.register(genresModule, { prefix: '/api' });
  await app.register(tracksModule, { prefix: '/api', tracks: new TracksService(infra.prisma) });
  return Object.assign(app, { infra });
}
