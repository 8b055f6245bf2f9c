import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { PrismaClient } from './generated/prisma/client.js';
import type { MediaProcessingConfig } from './config.js';
import { resolveMediaBinaries, useMediaBinaries, versionCheck } from './media/ffmpeg.js';

export { loadMediaProcessingConfig, type MediaProcessingConfig } from './config.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

/**
 * A worker with no public route (API.md §6): the HTTP side is /health, /ready, /metrics and
 * /openapi.json only. The processing pipeline (upload events in, progress and result events out)
 * is added with the tracks feature.
 */
export async function buildApp(config: MediaProcessingConfig, options: { logger?: boolean } = {}) {
  const media = await resolveMediaBinaries(config);
  useMediaBinaries(media);
  const { app, infra, addReadiness } = await createServiceApp({
    service: 'media-processing',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  const ffmpegRuns = versionCheck([media.ffprobe.path, media.ffmpeg.path]);
  addReadiness('ffmpeg', ffmpegRuns);
  // Run once now: the log says at boot which binaries are used and whether they start.
  await ffmpegRuns().then(
    () => app.log.info({ ffmpeg: media.ffmpeg, ffprobe: media.ffprobe }, 'media binaries ready'),
    (err: unknown) => app.log.warn({ err, ffmpeg: media.ffmpeg, ffprobe: media.ffprobe }, 'media binaries do not run; not ready'),
  );
  return Object.assign(app, { infra, media });
}
