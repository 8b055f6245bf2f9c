import { z } from 'zod';
import { IdTextSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { RENDITIONS, type MediaScope, type MediaSigner, type Rendition, type SignedQuery } from './media-signer.js';
import { sendObject } from './send-object.js';
import { isBanned } from '../user-bans/hidden-owners.js';

const SignedQuerySchema = z.object({
  e: IdTextSchema,
  g: z.enum(['o', 'v', 't']),
  s: z.string().min(1).max(100),
});

const RenditionParams = z.object({ trackId: IdTextSchema, rendition: z.enum(Object.keys(RENDITIONS) as [Rendition, ...Rendition[]]) });
const SegmentParams = z.object({ trackId: IdTextSchema, segment: z.string().regex(/^seg_\d{1,6}\.ts$/) });
const AssetParams = z.object({
  assetId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  file: z.enum(['waveform.json', 'audiowaveform.json', 'cover.jpg']),
});

const ASSET_TYPES: Record<string, string> = { 'waveform.json': 'application/json', 'audiowaveform.json': 'application/json', 'cover.jpg': 'image/jpeg' };

/**
 * The byte paths behind the URLs of R4. Every request re-checks the signature (bound to the track,
 * scope, grant and expiry) and the track as it is now: deleted or unfinished → 404; a viewer's URL
 * stops working when the track turns private, BLOCKED, or PREVIEW for the full rendition, or its
 * artist is banned (R2, R3, R14).
 */
export const mediaModule: FastifyPluginAsyncZod<{ prisma: PrismaClient; storage: ObjectStorage; signer: MediaSigner }> = async (
  app,
  { prisma, storage, signer },
) => {
  async function authorise(trackId: number, scope: MediaScope, query: SignedQuery) {
    const track = await prisma.track.findUnique({
      where: { id: trackId },
      select: {
        id: true, artistId: true, state: true, isPrivate: true, access: true, deletedAt: true, secretToken: true,
        progressiveKey: true, previewKey: true, hlsPlaylistKey: true, hlsPrefix: true,
      },
    });
    if (!signer.verify(trackId, scope, query, track?.secretToken ?? '')) throw new AppError('FORBIDDEN', 'The media URL is invalid or expired.');
    if (!track || track.deletedAt || track.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
    if (query.g === 'v' && track.isPrivate) throw new AppError('TRACK_NOT_FOUND');
    // R14: a viewer's or token URL stops working when the artist is banned.
    if (query.g !== 'o' && (await isBanned(prisma, track.artistId))) throw new AppError('TRACK_NOT_FOUND');
    if (query.g !== 'o') {
      const allowed = scope === 'full' ? track.access === 'PLAYABLE' : track.access !== 'BLOCKED';
      if (!allowed) throw new AppError('TRACK_NOT_PLAYABLE', 'This rendition is not available for this track.');
    }
    return track;
  }

  const privateCache = (expires: number) => `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}`;

  app.get(
    '/media/tracks/:trackId/:rendition',
    {
      schema: {
        operationId: 'MEDIA-1',
        summary: 'Signed track audio: progressive, preview or HLS playlist (R4)',
        tags: ['Media'],
        params: RenditionParams,
        querystring: SignedQuerySchema,
      },
    },
    async (request, reply) => {
      const { trackId, rendition } = request.params;
      const query = request.query as SignedQuery;
      const track = await authorise(trackId, RENDITIONS[rendition], query);
      if (rendition === 'index.m3u8') {
        if (!track.hlsPlaylistKey) throw new AppError('TRACK_NOT_FOUND');
        const chunks: Buffer[] = [];
        for await (const chunk of await storage.get(track.hlsPlaylistKey)) chunks.push(chunk as Buffer);
        // Segment lines become absolute signed URLs with the playlist's own expiry and grant.
        const playlist = Buffer.concat(chunks)
          .toString('utf8')
          .split('\n')
          .map((line) => {
            const name = line.trim();
            return name && !name.startsWith('#') ? signer.segmentUrl(trackId, name, query.g, query.e, track.secretToken) : line;
          })
          .join('\n');
        return reply
          .header('content-type', 'application/vnd.apple.mpegurl')
          .header('cache-control', privateCache(query.e))
          .send(playlist);
      }
      const key = rendition === 'full.m4a' ? track.progressiveKey : track.previewKey;
      if (!key) throw new AppError('TRACK_NOT_FOUND');
      return sendObject(reply, storage, key, {
        contentType: 'audio/mp4',
        range: request.headers.range,
        headers: { 'cache-control': privateCache(query.e) },
      });
    },
  );

  app.get(
    '/media/tracks/:trackId/segments/:segment',
    {
      schema: { operationId: 'MEDIA-2', summary: 'Signed HLS segment (R4)', tags: ['Media'], params: SegmentParams, querystring: SignedQuerySchema },
    },
    async (request, reply) => {
      const { trackId, segment } = request.params;
      const query = request.query as SignedQuery;
      const track = await authorise(trackId, 'full', query);
      if (!track.hlsPrefix) throw new AppError('TRACK_NOT_FOUND');
      return sendObject(reply, storage, `${track.hlsPrefix}${segment}`, {
        contentType: 'video/mp2t',
        range: request.headers.range,
        headers: { 'cache-control': privateCache(query.e) },
      });
    },
  );

  app.get(
    '/media/assets/:assetId/:file',
    { schema: { operationId: 'MEDIA-3', summary: 'Waveform and cover files (unsigned, unguessable)', tags: ['Media'], params: AssetParams } },
    async (request, reply) => {
      const { assetId, file } = request.params;
      return sendObject(reply, storage, `public/${assetId}/${file}`, {
        contentType: ASSET_TYPES[file] ?? 'application/octet-stream',
        range: request.headers.range,
        headers: { 'cache-control': 'public, max-age=31536000, immutable', 'access-control-allow-origin': '*' },
      });
    },
  );
};
