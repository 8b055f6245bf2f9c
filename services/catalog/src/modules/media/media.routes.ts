import { AppError } from '@msp/errors';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { PLAYLISTS, RENDITIONS, type SignedQuery } from './media-signer.js';
import type { MediaService } from './media.service.js';
import { sendObject } from './send-object.js';

const ASSET_TYPES: Record<string, string> = { 'waveform.json': 'application/json', 'audiowaveform.json': 'application/json', 'cover.jpg': 'image/jpeg' };

/** The byte paths behind the URLs of R4 (rules in MediaService; bytes streamed from storage with Range support). */
export const mediaModule: FastifyPluginAsyncZod<{ media: MediaService; storage: ObjectStorage }> = async (app, { media, storage }) => {
  const privateCache = (expires: number) => `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}`;

  app.route({
    ...operation('MEDIA-1'),
    handler: async (request, reply) => {
      const { trackId, rendition } = request.params;
      const query = request.query as SignedQuery;
      const track = await media.authorise(trackId, RENDITIONS[rendition], query);
      if (PLAYLISTS.has(rendition)) {
        const playlist = await media.hlsPlaylist(track, rendition, query);
        return reply.header('content-type', 'application/vnd.apple.mpegurl').header('cache-control', privateCache(query.e)).send(playlist);
      }
      const key = rendition === 'full.m4a' ? track.progressiveKey : track.previewKey;
      if (!key) throw new AppError('TRACK_NOT_FOUND');
      return sendObject(reply, storage, key, {
        contentType: 'audio/mp4',
        range: request.headers.range,
        headers: { 'cache-control': privateCache(query.e) },
      });
    },
  });

  app.route({
    ...operation('MEDIA-2'),
    handler: async (request, reply) => {
      const { trackId, segment } = request.params;
      const query = request.query as SignedQuery;
      const track = await media.authorise(trackId, 'full', query);
      if (!track.hlsPrefix) throw new AppError('TRACK_NOT_FOUND');
      return sendObject(reply, storage, `${track.hlsPrefix}${segment}`, {
        contentType: 'video/mp2t',
        range: request.headers.range,
        headers: { 'cache-control': privateCache(query.e) },
      });
    },
  });

  app.route({
    ...operation('MEDIA-3'),
    handler: async (request, reply) => {
      const { assetId, file } = request.params;
      return sendObject(reply, storage, `public/${assetId}/${file}`, {
        contentType: ASSET_TYPES[file] ?? 'application/octet-stream',
        range: request.headers.range,
        headers: { 'cache-control': 'public, max-age=31536000, immutable', 'access-control-allow-origin': '*' },
      });
    },
  });
};
