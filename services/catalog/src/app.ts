import { fileURLToPath } from 'node:url';
import { createServiceApp, startUserCountProjections, startUserProjection } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { CatalogConfig } from './config.js';
import { genresModule } from './modules/genres/genres.routes.js';
import { startSocialSync } from './modules/social-sync/social-sync.consumer.js';
import { tracksModule } from './modules/tracks/tracks.routes.js';
import { trackListsModule } from './modules/tracks/track-lists.routes.js';
import { TrackAccess } from './modules/tracks/track-access.js';
import { HistoryIndex } from './modules/tracks/history-index.js';
import { TrackEvents } from './modules/tracks/track-events.js';
import { TrackLifecycleService } from './modules/tracks/track-lifecycle.service.js';
import { TrackPlaysService } from './modules/tracks/track-plays.service.js';
import { TrackReadsService } from './modules/tracks/track-reads.service.js';
import { TrackUploadService } from './modules/tracks/track-upload.service.js';
import { TracksRepository } from './modules/tracks/tracks.repository.js';
import { CoverImages } from './modules/uploads/cover-images.js';
import { DEV_INSIGHTS_SALT, DEV_SIGNING_SECRET } from './config.js';
import { MediaClient } from './clients/media.client.js';
import { embedModule } from './modules/embed/embed.routes.js';
import { MediaSigner } from './modules/media/media-signer.js';
import { mediaModule } from './modules/media/media.routes.js';
import { MediaRepository } from './modules/media/media.repository.js';
import { MediaService } from './modules/media/media.service.js';
import { discoveryModule } from './modules/discovery/discovery.routes.js';
import { DiscoveryService } from './modules/discovery/discovery.service.js';
import { DiscoveryRepository } from './modules/discovery/discovery.repository.js';
import { StationPools } from './modules/discovery/station-pools.js';
import { startTrendingRefresher } from './modules/discovery/trending-stats.js';
import { startShortPrefixRefresher } from './modules/discovery/short-prefixes.js';
import { ShortPrefixesRepository } from './modules/discovery/short-prefixes.repository.js';
import { startUserBans } from './modules/user-bans/user-bans.consumer.js';
import { TrackPresenter } from './modules/tracks/track-presenter.js';
import { startFollowsCopy } from './modules/tracks/follows-copy.consumer.js';
import { ViewerFlagsRepository } from './modules/tracks/viewer-flags.repository.js';
import { TrackReadsRepository } from './modules/tracks/track-reads.repository.js';
import { processingConsumer } from './modules/tracks/processing.consumer.js';
import { startCatalogExport } from './modules/export/export.consumer.js';
import { copyrightHoldsConsumer, duplicatesConsumer } from './modules/duplicates/duplicates.consumer.js';
import { internalModule } from './modules/internal/internal.routes.js';
import { InternalPlaylistsService } from './modules/internal/internal-playlists.service.js';
import { InternalTracksService } from './modules/internal/internal-tracks.service.js';
import { PlaylistPresenter } from './modules/playlists/playlist-presenter.js';
import { playlistsModule } from './modules/playlists/playlists.routes.js';
import { PlaylistsService } from './modules/playlists/playlists.service.js';
import { PlaylistEditsService } from './modules/playlists/playlist-edits.service.js';
import { PlaylistsRepository } from './modules/playlists/playlists.repository.js';
import { installAdminAudit } from '@msp/runtime';
import { analyticsModule } from './modules/analytics/analytics.routes.js';
import { AnalyticsService } from './modules/analytics/analytics.service.js';
import { AnalyticsRepository } from './modules/analytics/analytics.repository.js';
import { startBanSync } from './modules/analytics/bans.consumer.js';
import { insightsModule } from './modules/insights/insights.routes.js';
import { InsightsService } from './modules/insights/insights.service.js';
import { InsightsRepository } from './modules/insights/insights.repository.js';
import { startInsightsBans, startInsightsFollows } from './modules/insights/insights.consumer.js';
import { PlayCounting } from './modules/insights/play-counting.js';
import { PLAY_FOLD, PlayLogRepository, startPlayLogMaintenance } from './modules/insights/play-log.repository.js';
import { installDownloadCounter } from './modules/insights/download-counter.js';
import { SoundRepository } from './modules/sound/sound.repository.js';
import { soundModule } from './modules/sound/sound.routes.js';
import { SoundService } from './modules/sound/sound.service.js';
import { startAccountDeletion } from './modules/deletion/account-deletion.consumer.js';
import { AccountDeletionRepository } from './modules/deletion/account-deletion.repository.js';

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
  // keepDeletedRow: the account-deletion consumer removes the summary row after the user's content (docs/account-control.md).
  stopOnClose(await startUserProjection({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'catalog', keepDeletedRow: true }));
  stopOnClose(
    await startUserCountProjections({ nc: infra.nc, db: infra.prisma, logger: app.log, service: 'catalog', followerCounts: true, trackCounts: false }),
  );
  stopOnClose(await startSocialSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(await startFollowsCopy({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(await startUserBans({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  stopOnClose(startTrendingRefresher(infra.prisma, app.log));
  stopOnClose(startShortPrefixRefresher(new ShortPrefixesRepository(infra.pool), app.log, config.SEARCH_PREFIX_REFRESH_MS));
  stopOnClose(await startBanSync({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  installAdminAudit(app, infra.prisma);

  await app.register(genresModule, { prefix: '/api' });
  if (config.NODE_ENV === 'production' && config.MEDIA_SIGNING_SECRET === DEV_SIGNING_SECRET) {
    app.log.warn('MEDIA_SIGNING_SECRET is the development default: set a shared secret for production');
  }
  const signer = new MediaSigner(config.MEDIA_SIGNING_SECRET, config.MEDIA_URL_TTL_SECONDS, config.PUBLIC_BASE_URL);
  const reads = new TrackReadsRepository(infra.pool);
  const viewerFlags = new ViewerFlagsRepository(infra.pool);
  const presenter = new TrackPresenter(reads, signer, viewerFlags, config.PUBLIC_BASE_URL, config.LOUDNESS_TARGET_LUFS);
  const trackRepo = new TracksRepository(infra.prisma);
  const access = new TrackAccess(reads);
  const events = new TrackEvents(trackRepo, presenter);
  const database = new URL(config.DATABASE_URL);
  const historyIndex = new HistoryIndex(infra.redis, `${database.host}${database.pathname}`);
  const tracks = new TrackReadsService({ reads, repo: trackRepo, access, presenter, historyIndex, webBaseUrl: config.WEB_BASE_URL });
  const lifecycle = new TrackLifecycleService({
    repo: trackRepo,
    access,
    events,
    presenter,
    storage: infra.storage,
    covers: new CoverImages(infra.storage),
    webBaseUrl: config.WEB_BASE_URL,
  });
  const uploads = new TrackUploadService({
    repo: trackRepo,
    reads,
    events,
    presenter,
    storage: infra.storage,
    uploadStorage: infra.storage,
    media: new MediaClient(config.MEDIA_PROCESSING_URL, config.PROBE_TIMEOUT_MS),
    limits: {
      audioMaxBytes: config.AUDIO_MAX_BYTES,
      coverMaxBytes: config.COVER_MAX_BYTES,
      audioMaxDurationSeconds: config.AUDIO_MAX_DURATION_SECONDS,
      freeTrackQuota: config.FREE_TRACK_QUOTA,
      uploadWaitMs: config.UPLOAD_WAIT_MS,
    },
  });
  // Artist insights (docs/insights.md): the play log behind TRK-17/18 and its rollups.
  const playLog = new PlayLogRepository(infra.pool);
  // The plays' own Redis connection, auto-pipelined: the judge and bookkeeping calls of the plays
  // arriving together leave in one write (docs/insights.md, "Counting rules").
  const playsRedis = infra.redis.duplicate({ enableAutoPipelining: true });
  playsRedis.on('error', (err: Error) => app.log.warn({ err: err.message }, 'plays redis error'));
  stopOnClose({ stop: async () => void (await playsRedis.quit().catch(() => playsRedis.disconnect())) });
  const counting = new PlayCounting(playsRedis, {
    dedupSeconds: config.PLAY_DEDUP_SECONDS,
    floodPerMinute: config.PLAY_FLOOD_PER_MINUTE,
    sweepTracksPerHour: config.PLAY_SWEEP_TRACKS_PER_HOUR,
  });
  const insights = new InsightsService(new InsightsRepository(infra.pool), playLog, counting);
  stopOnClose(startPlayLogMaintenance(playLog, app.log, { ...PLAY_FOLD, maxAgeMs: config.PLAY_FOLD_SECONDS * 1000 }));
  stopOnClose(
    await startAccountDeletion({
      nc: infra.nc,
      db: infra.prisma,
      repo: new AccountDeletionRepository(infra.prisma, app.log),
      logger: app.log,
      storage: infra.storage,
      redis: infra.redis,
      historyIndex,
    }),
  );
  stopOnClose(await startInsightsBans({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  // ACC-1: catalog's part of an account export (docs/account-control.md "Export").
  stopOnClose(await startCatalogExport({ nc: infra.nc, db: infra.prisma, logger: app.log, storage: infra.storage }));
  stopOnClose(await startInsightsFollows({ nc: infra.nc, db: infra.prisma, logger: app.log }));
  installDownloadCounter(app, insights);
  if (config.NODE_ENV === 'production' && config.INSIGHTS_CLIENT_SALT === DEV_INSIGHTS_SALT) {
    app.log.warn('INSIGHTS_CLIENT_SALT is the development default: set a secret salt for production');
  }
  const plays = new TrackPlaysService({
    repo: trackRepo,
    reads,
    access,
    redis: infra.redis,
    historyIndex: new HistoryIndex(playsRedis, `${database.host}${database.pathname}`),
    counting,
    playLog,
    clientSalt: config.INSIGHTS_CLIENT_SALT,
  });
  const processing = stopOnClose(processingConsumer({ nc: infra.nc, prisma: infra.prisma, logger: app.log, events, lifecycle }));
  await processing.start();
  // Duplicate detection's consequences (docs/fingerprints.md): holds and their release.
  for (const start of [duplicatesConsumer, copyrightHoldsConsumer]) {
    const consumer = stopOnClose(start({ nc: infra.nc, prisma: infra.prisma, logger: app.log, events }));
    await consumer.start();
  }

  await app.register(trackListsModule, { prefix: '/api', reads: tracks });
  await app.register(tracksModule, { prefix: '/api', reads: tracks, lifecycle, uploads, plays, storage: infra.storage, coverMaxBytes: config.COVER_MAX_BYTES });
  await app.register(soundModule, { prefix: '/api', sound: new SoundService(reads, new SoundRepository(infra.prisma), config.LOUDNESS_TARGET_LUFS) });
  const playlistRepo = new PlaylistsRepository(infra.prisma, reads, infra.pool);
  const playlistPresenter = new PlaylistPresenter(playlistRepo, presenter, viewerFlags);
  const playlists = new PlaylistsService({ repo: playlistRepo, presenter: playlistPresenter, webBaseUrl: config.WEB_BASE_URL });
  const edits = new PlaylistEditsService({ repo: playlistRepo, reads: playlists, presenter: playlistPresenter, storage: infra.storage });
  await app.register(playlistsModule, {
    prefix: '/api',
    playlists,
    edits,
    storage: infra.storage,
    coverMaxBytes: config.COVER_MAX_BYTES,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  });
  const discovery = new DiscoveryService({
    repo: new DiscoveryRepository(infra.prisma, reads, infra.pool),
    reads,
    stations: new StationPools(),
    tracks,
    playlists,
    trackPresenter: presenter,
    playlistPresenter,
    webBaseUrl: config.WEB_BASE_URL,
  });
  await app.register(discoveryModule, { prefix: '/api', discovery });
  await app.register(mediaModule, { prefix: '/api', media: new MediaService(new MediaRepository(infra.pool), signer, infra.storage), storage: infra.storage });
  await app.register(embedModule, { prefix: '/api', tracks, playlists, webBaseUrl: config.WEB_BASE_URL, publicBaseUrl: config.PUBLIC_BASE_URL });
  await app.register(analyticsModule, {
    prefix: '/api',
    analytics: new AnalyticsService(new AnalyticsRepository(infra.prisma), config.STORAGE_CAPACITY_BYTES),
  });
  await app.register(insightsModule, { prefix: '/api', insights });
  await app.register(internalModule, {
    tracks: new InternalTracksService(reads, presenter),
    playlists: new InternalPlaylistsService(playlistRepo, playlistPresenter),
  });
  return Object.assign(app, { infra, tracks, playlists, trackRepo, trackEvents: events });
}
