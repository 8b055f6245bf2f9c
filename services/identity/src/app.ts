import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import { createServiceApp } from '@msp/runtime';
import { installAdminAudit } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { IdentityConfig } from './config.js';
import { Links } from './links.js';
import { keysModule } from './modules/keys/keys.routes.js';
import { SigningKeysRepository } from './modules/keys/signing-keys.repository.js';
import { SigningKeyService } from './modules/keys/keys.service.js';
import { accountsModule } from './modules/accounts/accounts.routes.js';
import { AccountsRepository } from './modules/accounts/accounts.repository.js';
import { AccountsService } from './modules/accounts/accounts.service.js';
import { dummyHash } from './modules/accounts/passwords.js';
import { MailQueueRepository } from './modules/mail/mail-queue.repository.js';
import { MailSender } from './modules/mail/mail.sender.js';
import { MailRequests } from './modules/mail/mail-requests.js';
import { createIdentityRedis, RevocationStore } from './modules/sessions/redis-store.js';
import { LoginThrottle } from './modules/sessions/throttle.js';
import { KnownDevices } from './modules/sessions/known-devices.repository.js';
import { SessionsRepository } from './modules/sessions/sessions.repository.js';
import { SessionsService } from './modules/sessions/sessions.service.js';
import { LoginService } from './modules/sessions/login.service.js';
import { sessionsModule } from './modules/sessions/sessions.routes.js';
import { SecurityRepository } from './modules/security/security.repository.js';
import { SecurityService } from './modules/security/security.service.js';
import { securityModule } from './modules/security/security.routes.js';
import { PeersClient } from './modules/profiles/peers.client.js';
import { ProfilesRepository } from './modules/profiles/profiles.repository.js';
import { ProfilesService } from './modules/profiles/profiles.service.js';
import { profilesModule } from './modules/profiles/profiles.routes.js';
import { startCountConsumers } from './modules/profiles/counts.consumer.js';
import { startBillingTierConsumer } from './modules/profiles/billing-tier.consumer.js';
import { ImagesService } from './modules/images/images.service.js';
import { imagesModule } from './modules/images/images.routes.js';
import { GoogleClient } from './modules/oauth/google.client.js';
import { OAuthRepository } from './modules/oauth/oauth.repository.js';
import { OAuthService } from './modules/oauth/oauth.service.js';
import { oauthModule } from './modules/oauth/oauth.routes.js';
import { ModerationRepository } from './modules/moderation/moderation.repository.js';
import { ModerationService, startRevocationSync } from './modules/moderation/moderation.service.js';
import { moderationModule } from './modules/moderation/moderation.routes.js';
import { MfaCrypto, secretKeyOf } from './modules/mfa/mfa.crypto.js';
import { MfaRepository } from './modules/mfa/mfa.repository.js';
import { MfaService } from './modules/mfa/mfa.service.js';
import { MfaThrottle } from './modules/mfa/mfa.throttle.js';
import { mfaModule } from './modules/mfa/mfa.routes.js';
import { PasskeysRepository } from './modules/passkeys/passkeys.repository.js';
import { PasskeysService } from './modules/passkeys/passkeys.service.js';
import { passkeysModule } from './modules/passkeys/passkeys.routes.js';
import { AppsRepository } from './modules/apps/apps.repository.js';
import { AppsService, startAppsSync } from './modules/apps/apps.service.js';
import { AppStatusStore } from './modules/apps/app-status.store.js';
import { appsModule } from './modules/apps/apps.routes.js';
import { AppUsageRepository } from './modules/apps/app-usage.repository.js';
import { OAuthServerService } from './modules/oauth-server/oauth-server.service.js';
import { oauthServerModule } from './modules/oauth-server/oauth-server.routes.js';
import { DeletionRepository } from './modules/deletion/deletion.repository.js';
import { DeletionService } from './modules/deletion/deletion.service.js';
import { createDeletionWorker } from './modules/deletion/deletion.worker.js';
import { deletionModule } from './modules/deletion/deletion.routes.js';
import { ExportsRepository } from './modules/exports/exports.repository.js';
import { ExportAssembler, ExportsService, startExportConsumers } from './modules/exports/exports.service.js';
import { exportsModule } from './modules/exports/exports.routes.js';

export { loadIdentityConfig, type IdentityConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const REVOCATION_SYNC_MS = 60_000;

export async function buildApp(config: IdentityConfig, options: { logger?: boolean } = {}) {
  const { app, infra, stopOnClose } = await createServiceApp({
    service: 'identity',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });
  const prisma = infra.prisma;
  const redis = createIdentityRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  redis.on('error', (err) => app.log.warn({ err: err.message }, 'identity redis error'));
  stopOnClose({ stop: async () => void redis.disconnect() });

  await app.register(cookie);
  installAdminAudit(app, prisma);

  const links = new Links(config);
  const keys = new SigningKeyService(new SigningKeysRepository(prisma));
  await keys.ensureActiveKey();
  await dummyHash();

  const mailQueue = new MailQueueRepository(prisma);
  const mail = stopOnClose(
    new MailSender({
      queue: mailQueue,
      logger: app.log,
      smtpUrl: config.SMTP_URL,
      from: config.MAIL_FROM,
      mailDir: config.MAIL_DIR,
      pollMs: config.MAIL_POLL_MS,
      maxAttempts: config.MAIL_MAX_ATTEMPTS,
    }),
  );
  mail.start();
  const mailQueued = () => mail.wake();
  const mailRequests = stopOnClose(new MailRequests({ queue: mailQueue, logger: app.log, pollMs: config.MAIL_POLL_MS, maxAttempts: config.MAIL_MAX_ATTEMPTS }));

  const revocation = new RevocationStore(redis, config.ACCESS_TOKEN_TTL_SECONDS);
  const sessionRows = new SessionsRepository(prisma);
  const sessions = new SessionsService(sessionRows, keys, revocation, config, links);
  const throttle = new LoginThrottle(redis, {
    perAddress: config.LOGIN_FAILURES_PER_ADDRESS,
    perAccount: config.LOGIN_FAILURES_PER_ACCOUNT,
    perDevice: config.LOGIN_FAILURES_PER_KNOWN_DEVICE,
  });
  const devices = new KnownDevices(prisma);
  const mfaCrypto = new MfaCrypto(secretKeyOf(config));
  const mfaRows = new MfaRepository(prisma);
  const passkeys = new PasskeysService(new PasskeysRepository(prisma), mfaCrypto, redis, config);
  const mfa = new MfaService(mfaRows, mfaCrypto, new MfaThrottle(redis), redis, config, sessions, devices, passkeys);
  const login = new LoginService(sessionRows, sessions, throttle, devices, mfa);
  const accounts = new AccountsService(new AccountsRepository(prisma), config, links, redis, mailQueued, mailRequests);
  const security = new SecurityService(new SecurityRepository(prisma), config, links, redis, sessions, mailQueued, mailRequests, throttle, devices);
  mailRequests.handle('VERIFY_EMAIL', (email) => accounts.sendVerification(email));
  mailRequests.handle('RESET_PASSWORD', (email) => security.sendPasswordReset(email));
  mailRequests.start();
  const peers = new PeersClient({ social: config.SOCIAL_URL, billing: config.BILLING_URL }, config.PEER_TIMEOUT_MS, app.log);
  const profiles = new ProfilesService(new ProfilesRepository(prisma), links, peers, sessions);
  const images = new ImagesService(infra.storage, profiles, links, app.log);
  await images.allowPublicRead();
  const oauth = new OAuthService(new OAuthRepository(prisma), new GoogleClient(config), accounts, sessions, redis, links, config);
  const moderation = new ModerationService(new ModerationRepository(prisma), sessions, revocation, links, app.log);
  await moderation.ensureAdmins(config.ADMIN_ACCOUNTS);

  for (const consumer of await startCountConsumers({ nc: infra.nc, db: prisma, logger: app.log })) stopOnClose(consumer);
  stopOnClose(await startBillingTierConsumer({ nc: infra.nc, db: prisma, logger: app.log }));
  stopOnClose(startRevocationSync(moderation, config.ACCESS_TOKEN_TTL_SECONDS, REVOCATION_SYNC_MS, app.log));
  const appRows = new AppsRepository(prisma);
  const apps = new AppsService(appRows, revocation, new AppStatusStore(redis), app.log, new AppUsageRepository(redis));
  const oauthServer = new OAuthServerService(appRows, apps, keys, login, mfa, (userId) => sessionRows.findTokenUser(userId), config, app.log);
  stopOnClose(startAppsSync(apps, config.ACCESS_TOKEN_TTL_SECONDS, REVOCATION_SYNC_MS, app.log));

  await app.register(keysModule, { keys });
  await app.register(accountsModule, { prefix: '/api', accounts });
  await app.register(sessionsModule, { prefix: '/api', sessions, login, config });
  await app.register(securityModule, { prefix: '/api', security, config });
  await app.register(mfaModule, { prefix: '/api', mfa, config });
  await app.register(passkeysModule, { prefix: '/api', passkeys, mfa, users: mfaRows, config });
  await app.register(profilesModule, { prefix: '/api', profiles, config });
  await app.register(imagesModule, { prefix: '/api', images, maxBytes: config.IMAGE_MAX_BYTES });
  await app.register(oauthModule, { prefix: '/api', oauth, config });
  await app.register(moderationModule, { prefix: '/api', moderation });
  await app.register(appsModule, { prefix: '/api', apps });
  await app.register(oauthServerModule, { prefix: '/api', oauthServer });
  // ACC-1/ACC-2: account data export (docs/account-control.md "Export").
  const exportRows = new ExportsRepository(prisma);
  const assembler = new ExportAssembler(exportRows, infra.storage, links, app.log, config.S3_ENDPOINT, config.EXPORT_POLL_MS);
  const exports = new ExportsService(exportRows, infra.storage);
  for (const consumer of await startExportConsumers({
    nc: infra.nc,
    db: prisma,
    logger: app.log,
    storage: infra.storage,
    rows: exportRows,
    partRecorded: () => assembler.wake(),
  })) {
    stopOnClose(consumer);
  }
  await assembler.start();
  stopOnClose(assembler);
  await app.register(exportsModule, { prefix: '/api', exports });
  // ACC-3…ACC-5: account deletion and its grace worker (docs/account-control.md "Deletion").
  const deletionRows = new DeletionRepository(prisma);
  let wakeDeletion = () => {};
  const deletion = new DeletionService(deletionRows, {
    sessions,
    revocation,
    apps,
    mfa,
    login,
    storage: infra.storage,
    graceSeconds: config.ACCOUNT_DELETION_GRACE,
    logger: app.log,
    wake: () => wakeDeletion(),
  });
  const deletionWorker = stopOnClose(createDeletionWorker(deletion, deletionRows, config.ACCOUNT_DELETION_POLL_MS, app.log));
  wakeDeletion = () => deletionWorker.wake();
  void deletionWorker.start();
  await app.register(deletionModule, { prefix: '/api', deletion });
  return Object.assign(app, { infra, keys, sessions, moderation, redis, deletion });
}
