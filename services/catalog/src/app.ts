import { fileURLToPath } from 'node:url';
import { createHttpApp } from '@msp/http';
import { startInfrastructure } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { CatalogConfig } from './config.js';
import { startUserProjection } from './modules/users/users.consumer.js';
import { genresModule } from './modules/genres/genres.routes.js';
import { tracksModule } from './modules/tracks/tracks.routes.js';
import { TracksService } from './modules/tracks/tracks.service.js';

export { loadCatalogConfig, type CatalogConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: CatalogConfig, options: { logger?: boolean } = {}) {
  const readiness = {};
  const app = await createHttpApp({
    service: 'catalog',
    readiness,
    logLevel: config.LOG_LEVEL,
    logger: options.logger === false ? false : undefined,
  });
  const infra = await startInfrastructure({
    service: 'catalog',
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

  await app.register(genresModule, { prefix: '/api' });
  await app.register(tracksModule, { prefix: '/api', tracks: new TracksService(infra.prisma) });
  return Object.assign(app, { infra });
}
