import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserCountProjections, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { CatalogConfig } from './config.js';
import { genresModule } from './modules/genres/genres.routes.js';
import { startSocialSync } from './modules/social-sync/social-sync.consumer.js';
import { tracksModule } from './modules/tracks/tracks.routes.js';
import { TracksService } from './modules/tracks/tracks.service.js';
import { DEV_SIGNING_SECRET } from './config.js';
import { MediaClient } from './clients/media.client.js';
import { SocialClient } from './clients/social.client.js';
import { embedModule } from './modules/embed/embed.routes.js';
import { MediaSigner } from './modules/media/media-signer.js';
import { mediaModule } from './modules/media/media.routes.js';
import { discoveryModule } from './modules/discovery/discovery.routes.js';
import { DiscoveryService } from './modules/discovery/discovery.service.js';
import { startTrendingRefresher } from './modules/discovery/trending-stats.js';
import { startUserBans } from './modules/user-bans/user-bans.consumer.js';
import { TrackPresenter } from './modules/tracks/track-presenter.js';
import { processingConsumer } from './modules/tracks/processing.consumer.js';
import { internalModule } from './modules/internal/internal.routes.js';
import { InternalPlaylistsService } from './modules/internal/internal-playlists.service.js';
import { InternalTracksService } from './modules/internal/internal-tracks.service.js';
import { PlaylistPresenter } from './modules/playlists/playlist-presenter.js';
import { playlistsModule } from './modules/playlists/playlists.routes.js';
import { PlaylistsService } from './modules/playlists/playlists.service.js';
import { PlaylistsRepository } from './modules/playlists/playlists.repository.js';
import { installAdminAudit } from '@msp/runtime';
import { analyticsModule } from './modules/analytics/analytics.routes.js';
import { AnalyticsService } from './modules/analytics/analytics.service.js';
import { startBanSync } from './modules/analytics/bans.consumer.js';

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
  stopOnClose(await startUserCountProjections({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'catalog', followerCounts: true, trackCounts: false }));
  stopOnClose(await startSocialSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(await startUserBans({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(startTrendingRefresher(infra.prisma, app.log));
  stopOnClose(await startBanSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  installAdminAudit(app, infra.prisma);

  await app.register(genresModule, { prefix: '/api' });
  if (config.NODE_ENV === 'production' && config.MEDIA_SIGNING_SECRET === DEV_SIGNING_SECRET) {
    app.log.warn('MEDIA_SIGNING_SECRET is the development default: set a shared secret for production');
  }
  const signer = new MediaSigner(config.MEDIA_SIGNING_SECRET, config.MEDIA_URL_TTL_SECONDS, config.PUBLIC_BASE_URL);
  const social = new SocialClient(config.SOCIAL_URL, config.INTERNAL_TIMEOUT_MS, app.log);
  const presenter = new TrackPresenter(infra.prisma, signer, social, config.PUBLIC_BASE_URL);
  const tracks = new TracksService({
    prisma: infra.prisma,
    presenter,
    storage: infra.storage,
    uploadStorage: infra.storage,
    media: new MediaClient(config.MEDIA_PROCESSING_URL, config.PROBE_TIMEOUT_MS),
    social,
    redis: infra.redis,
    config,
  });
  const processing = stopOnClose(processingConsumer({ nc: infra.nc, prisma: infra.prisma, logger: app.log, tracks }));
  await processing.start();

  await app.register(tracksModule, { prefix: '/api', tracks, storage: infra.storage, coverMaxBytes: config.COVER_MAX_BYTES });
  const playlistPresenter = new PlaylistPresenter(new PlaylistsRepository(infra.prisma), presenter, social);
  const playlists = new PlaylistsService({
    prisma: infra.prisma,
    presenter: playlistPresenter,
    social,
    storage: infra.storage,
    webBaseUrl: config.WEB_BASE_URL,
  });
  await app.register(playlistsModule, { prefix: '/api', playlists, storage: infra.storage, coverMaxBytes: config.COVER_MAX_BYTES, publicBaseUrl: config.PUBLIC_BASE_URL });
  const discovery = new DiscoveryService({
    prisma: infra.prisma,
    tracks,
    playlists,
    trackPresenter: presenter,
    playlistPresenter,
    social,
    webBaseUrl: config.WEB_BASE_URL,
  });
  await app.register(discoveryModule, { prefix: '/api', discovery });
  await app.register(mediaModule, { prefix: '/api', prisma: infra.prisma, storage: infra.storage, signer });
  await app.register(embedModule, { prefix: '/api', tracks, playlists, webBaseUrl: config.WEB_BASE_URL, publicBaseUrl: config.PUBLIC_BASE_URL });
  await app.register(analyticsModule, { prefix: '/api', analytics: new AnalyticsService(infra.prisma, config.STORAGE_CAPACITY_BYTES) });
  await app.register(internalModule, {
    tracks: new InternalTracksService(infra.prisma, presenter),
    playlists: new InternalPlaylistsService(infra.prisma, playlistPresenter),
  });
  return Object.assign(app, { infra, tracks, playlists });
}
