import { fileURLToPath } from 'node:url';
import { prismaUnitOfWork } from '@msp/db';
import { createServiceApp, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { SocialConfig } from './config.js';
import { CatalogClient } from '@msp/runtime';
import { blocksModule } from './modules/blocks/blocks.routes.js';
import { BlocksService } from './modules/blocks/blocks.service.js';
import { startCatalogSync } from './modules/catalog-sync/catalog-sync.consumer.js';
import { commentsModule } from './modules/comments/comments.routes.js';
import { CommentsService } from './modules/comments/comments.service.js';
import { activityModule } from './modules/engagement/activity.routes.js';
import { ActivityService } from './modules/engagement/activity.service.js';
import { engagementModule } from './modules/engagement/engagement.routes.js';
import { EngagementService } from './modules/engagement/engagement.service.js';
import { feedModule } from './modules/feed/feed.routes.js';
import { FeedService } from './modules/feed/feed.service.js';
import { followsModule } from './modules/follows/follows.routes.js';
import { FollowsService } from './modules/follows/follows.service.js';
import { InternalReadsRepository } from './modules/internal/internal.repository.js';
import { internalModule } from './modules/internal/internal.routes.js';
import { InternalReadsService } from './modules/internal/internal.service.js';
import { startUserBans } from './modules/users/user-bans.consumer.js';
import { startUserDeletion } from './modules/deletion/user-deletion.consumer.js';
import { reportsModule } from './modules/reports/reports.routes.js';
import { ReportsService } from './modules/reports/reports.service.js';
import { startDuplicateReports } from './modules/reports/duplicate-reports.consumer.js';

import { BlocksRepository } from './modules/blocks/blocks.repository.js';
import { CommentsRepository } from './modules/comments/comments.repository.js';
import { ActivityRepository } from './modules/engagement/activity.repository.js';
import { EngagementRepository } from './modules/engagement/engagement.repository.js';
import { FeedRepository } from './modules/feed/feed.repository.js';
import { FollowsRepository } from './modules/follows/follows.repository.js';
import { AdminAuditRepository } from './modules/reports/admin-audit.repository.js';
import { ReportsRepository } from './modules/reports/reports.repository.js';
import { GraphLocksRepository } from './modules/users/graph-locks.repository.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { startSocialExport } from './modules/export/export.consumer.js';

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
  // The deletion consumer (modules/deletion) removes the user copy last, after the user's rows.
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'social', keepDeletedRow: true }));
  stopOnClose(await startCatalogSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(await startUserBans({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(await startDuplicateReports({ nc: infra.nc, db: infra.prisma, logger: app.log, reports: new ReportsRepository(infra.prisma) }));
  // ACC-1: social's part of an account export (docs/account-control.md "Export").
  stopOnClose(await startSocialExport({ nc: infra.nc, db: infra.prisma, logger: app.log, storage: infra.storage }));
  stopOnClose(await startUserDeletion({ nc: infra.nc, db: infra.prisma, logger: app.log }));

  // Collaborators are built here and handed to the services by constructor (layering):
  // repositories hold the SQL, services the rules, routes the HTTP.
  const db = infra.prisma;
  const transactions = prismaUnitOfWork(db);
  const users = new UsersRepository(db);
  const graph = new GraphLocksRepository();
  const follows = new FollowsRepository(db);
  const items = new EngagementRepository(db);
  const comments = new CommentsRepository(db);
  const catalog = new CatalogClient(config.CATALOG_URL, config.INTERNAL_TIMEOUT_MS, app.log);
  const feedLimits = { windowDays: config.FEED_WINDOW_DAYS, maxItems: config.FEED_MAX_ITEMS };

  await app.register(followsModule, { prefix: '/api', follows: new FollowsService(follows, users, graph, transactions) });
  await app.register(blocksModule, { prefix: '/api', blocks: new BlocksService(new BlocksRepository(db), follows, users, graph, transactions) });
  await app.register(engagementModule, { prefix: '/api', engagement: new EngagementService(items, transactions) });
  await app.register(activityModule, { prefix: '/api', activity: new ActivityService(new ActivityRepository(db), users, catalog) });
  await app.register(feedModule, { prefix: '/api', feed: new FeedService(new FeedRepository(db), users, catalog, feedLimits) });
  await app.register(commentsModule, { prefix: '/api', comments: new CommentsService(comments, items, transactions) });
  await app.register(reportsModule, {
    prefix: '/api',
    reports: new ReportsService(new ReportsRepository(db), items, comments, new AdminAuditRepository(app.log), catalog, transactions),
  });
  await app.register(internalModule, { reads: new InternalReadsService(new InternalReadsRepository(infra.pool)) });
  return Object.assign(app, { infra });
}
