import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { IdentityConfig } from './config.js';
import { keysModule } from './modules/keys/keys.routes.js';
import { SigningKeyService } from './modules/keys/keys.service.js';
import { accountsModule } from './modules/accounts/accounts.routes.js';
import { AccountsService } from './modules/accounts/accounts.service.js';

export { loadIdentityConfig, type IdentityConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function buildApp(config: IdentityConfig, options: { logger?: boolean } = {}) {
  const { app, infra } = await createServiceApp({
    service: 'identity',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });
  const keys = new SigningKeyService(infra.prisma);
  await keys.ensureActiveKey();
  const accounts = new AccountsService(infra.prisma, config);

  await app.register(keysModule, { keys });
  await app.register(accountsModule, { prefix: '/api', accounts });
  return Object.assign(app, { infra, keys });
}
