import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import {
  DeviceInfoSchema,
  EmbedCodeSchema,
  IdParamSchema,
  MessageResponseSchema,
  PublishResultSchema,
  ResolveResultSchema,
  SecretTokenSchema,
  TrackSchema,
  UploadAcceptedSchema,
  UploadStatusMessageSchema,
  WaveformUrlSchema,
  type DeviceInfo,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, clientAddress, multipartParts, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { sendObject } from '../media/send-object.js';
import { UpdateJsonSchema, UpdateMultipartSchema, type TrackUpdate } from '../uploads/upload-fields.js';
import type { UploadSource } from '../uploads/upload-receiver.js';
import type { TrackLifecycleService } from './track-lifecycle.service.js';
import { PLAY_SOURCES } from '../insights/play-log.repository.js';
import type { TrackPlaysService } from './track-plays.service.js';
import type { TrackReadsService } from './track-reads.service.js';
import type { TrackUploadService } from './track-upload.service.js';

const TrackParams = IdParamSchema('trackId');

/** TRK-17/18 body; every field optional, unknown ones ignored; `source` is where the play started (docs/insights.md). */
const PlayBodySchema = z
  .object({
    trackId: z.number().int().positive().optional(),
    deviceInfo: DeviceInfoSchema.optional(),
    secretToken: z.string().max(200).optional(),
    source: z.enum(PLAY_SOURCES).optional(),
  })
  .nullish();

const bearerAuth = [{ bearerAuth: [] }];

/** Bearer routes answer 401 before looking at the request's parameters. */
async function bearer(request: FastifyRequest) {
  requireCaller(request);
}

async function admin(request: FastifyRequest) {
  requireAdmin(request);
}

/** The upload as the service reads it: declared length and multipart parts (ending in 400 when the body ends early). */
function uploadSource(request: FastifyRequest): UploadSource {
  return { contentLength: Number(request.headers['content-length']), parts: (options) => multipartParts(request.raw, () => request.parts(options)) };
}

export interface TracksModuleOptions {
  reads: TrackReadsService;
  lifecycle: TrackLifecycleService;
  uploads: TrackUploadService;
  plays: TrackPlaysService;
  storage: ObjectStorage;
  coverMaxBytes: number;
}

export const tracksModule: FastifyPluginAsyncZod<TracksModuleOptions> = async (app, { reads, lifecycle, uploads, plays, storage, coverMaxBytes }) => {
  await app.register(multipart);

  /** TRK-8 body: JSON, or multipart text parts plus an optional cover (bytes; the service checks and resizes it). */
  async function readUpdate(request: FastifyRequest): Promise<{ input: TrackUpdate; cover: Buffer | null }> {
    if (!request.isMultipart()) {
      const parsed = UpdateJsonSchema.safeParse(request.body ?? {});
      if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })));
      return { input: parsed.data, cover: null };
    }
    const fields: Record<string, string> = {};
    let cover: Buffer | null = null;
    let tooLarge = false;
    for await (const part of multipartParts(request.raw, () =>
      request.parts({ limits: { fileSize: coverMaxBytes + 1, fieldSize: 64 * 1024, files: 2, fields: 20 } }),
    )) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value ?? '');
      } else if (part.fieldname === 'coverImage' && !cover) {
        const buf = await part.toBuffer().catch((err: { code?: string }) => {
          if (err.code === 'FST_REQ_FILE_TOO_LARGE') tooLarge = true;
          return Buffer.alloc(0);
        });
        cover = buf;
      } else {
        part.file.resume();
      }
    }
    if (tooLarge || (cover && cover.length > coverMaxBytes)) throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${coverMaxBytes} bytes.`);
    const parsed = UpdateMultipartSchema.safeParse(fields);
    if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })));
    return { input: parsed.data, cover };
  }

  const listener = (request: FastifyRequest) => ({ ip: clientAddress(request), userAgent: String(request.headers['user-agent'] ?? '') });

  app.post(
    '/tracks/upload',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-1',
        summary: 'Upload a new track',
        tags: ['Tracks'],
        security: bearerAuth,
        consumes: ['multipart/form-data'],
        response: { 201: TrackSchema, 202: TrackSchema },
      },
    },
    async (request, reply) => {
      const result = await uploads.upload(uploadSource(request), requireCaller(request), 'v1', String(request.id));
      return reply.code(result.status).send(result.body as z.infer<typeof TrackSchema>);
    },
  );

  app.post(
    '/tracks/upload/v2',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-2',
        summary: 'Upload a new track V2',
        tags: ['Tracks'],
        security: bearerAuth,
        consumes: ['multipart/form-data'],
        response: { 201: UploadAcceptedSchema },
      },
    },
    async (request, reply) => {
      const result = await uploads.upload(uploadSource(request), requireCaller(request), 'v2', String(request.id));
      return reply.code(201).send(result.body as z.infer<typeof UploadAcceptedSchema>);
    },
  );

  app.get(
    '/tracks/:trackId/status',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-3',
        summary: 'Track status',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: UploadStatusMessageSchema },
      },
    },
    async (request) => lifecycle.status(request.params.trackId, requireCaller(request)),
  );

  app.post(
    '/tracks/:trackId/retry-processing',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-4',
        summary: 'Retry processing',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 202: UploadStatusMessageSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await lifecycle.retry(request.params.trackId, requireCaller(request), String(request.id))),
  );

  app.post(
    '/tracks/:trackId/publish',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-5',
        summary: 'Publish track',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: PublishResultSchema },
      },
    },
    async (request) => lifecycle.publish(request.params.trackId, requireCaller(request), String(request.id)),
  );

  app.get(
    '/tracks/:trackId',
    { schema: { operationId: 'TRK-6', summary: 'Track metadata', tags: ['Tracks'], params: TrackParams, response: { 200: TrackSchema } } },
    async (request) => reads.get(request.params.trackId, callerFrom(request)),
  );

  app.get(
    '/users/me/tracks/:trackId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-7',
        summary: 'Track metadata (user)',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: TrackSchema },
      },
    },
    async (request) => reads.getOwn(request.params.trackId, requireCaller(request)),
  );

  app.patch(
    '/tracks/:trackId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-8',
        summary: 'Update track metadata',
        tags: ['Tracks'],
        security: bearerAuth,
        consumes: ['application/json', 'multipart/form-data'],
        params: TrackParams,
        response: { 200: TrackSchema },
      },
    },
    async (request) => {
      const caller = requireCaller(request);
      const { input, cover } = await readUpdate(request);
      return lifecycle.update(request.params.trackId, caller, input, cover, String(request.id));
    },
  );

  app.delete(
    '/tracks/:trackId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-9',
        summary: 'Delete a track',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: MessageResponseSchema },
      },
    },
    async (request) => {
      await lifecycle.delete(request.params.trackId, requireCaller(request), false, String(request.id));
      return { message: 'Track deleted.' };
    },
  );

  app.delete(
    '/tracks/:trackId/cover',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-10',
        summary: 'Delete track cover',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await lifecycle.deleteCover(request.params.trackId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/tracks/:trackId/secret-token',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-11',
        summary: 'Get secret token',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: SecretTokenSchema },
      },
    },
    async (request) => lifecycle.secretToken(request.params.trackId, requireCaller(request)),
  );

  app.post(
    '/tracks/:trackId/regenerate-token',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-12',
        summary: 'Generate new secret token',
        tags: ['Tracks'],
        security: bearerAuth,
        params: TrackParams,
        response: { 200: SecretTokenSchema },
      },
    },
    async (request) => lifecycle.regenerateToken(request.params.trackId, requireCaller(request)),
  );

  app.get(
    '/tracks/token/:token',
    {
      schema: {
        operationId: 'TRK-13',
        summary: 'Track with token',
        tags: ['Tracks'],
        params: z.object({ token: z.string().min(1).max(200) }),
        response: { 200: TrackSchema },
      },
    },
    async (request) => reads.byToken(request.params.token, callerFrom(request)),
  );

  app.get(
    '/tracks/resolve/:trackSlug',
    {
      schema: {
        operationId: 'TRK-14',
        summary: 'Resolve track slug to id',
        tags: ['Tracks'],
        params: z.object({ trackSlug: z.string().min(1).max(200) }),
        response: { 200: ResolveResultSchema },
      },
    },
    async (request) => reads.resolve(request.params.trackSlug, callerFrom(request)),
  );

  app.get(
    '/tracks/:trackId/waveform-url',
    { schema: { operationId: 'TRK-15', summary: 'Waveform URL', tags: ['Tracks'], params: TrackParams, response: { 200: WaveformUrlSchema } } },
    async (request) => reads.waveformUrl(request.params.trackId, callerFrom(request)),
  );

  app.get(
    '/tracks/:trackId/embed',
    { schema: { operationId: 'TRK-16', summary: 'HTML iframe embed code', tags: ['Tracks'], params: TrackParams, response: { 200: EmbedCodeSchema } } },
    async (request) => reads.embed(request.params.trackId, callerFrom(request)),
  );

  for (const [id, path, kind, summary] of [
    ['TRK-17', '/tracks/:trackId/play', 'play', 'Increment play count'],
    ['TRK-18', '/tracks/:trackId/complete', 'complete', 'Mark a track as completely listened to'],
  ] as const) {
    app.post(
      path,
      { schema: { operationId: id, summary, tags: ['Tracks'], params: TrackParams, body: PlayBodySchema, response: { 200: MessageResponseSchema } } },
      async (request, reply) => {
        const { message, playId } = await plays.play(
          request.params.trackId,
          callerFrom(request),
          (request.body as { secretToken?: string; deviceInfo?: DeviceInfo } | null | undefined)?.secretToken ?? undefined,
          listener(request),
          kind,
          request.body?.source ?? null,
        );
        // The logged play, for progress events naming it (INS-4); the body stays the contract's.
        reply.header('x-play-id', playId);
        return { message };
      },
    );
  }

  app.get(
    '/tracks/:trackId/download',
    {
      onRequest: bearer,
      schema: { operationId: 'TRK-19', summary: 'Mock offline download for Pro users', tags: ['Tracks'], security: bearerAuth, params: TrackParams },
    },
    async (request, reply) => {
      const file = await reads.download(request.params.trackId, requireCaller(request));
      return sendObject(reply, storage, file.key, {
        contentType: file.contentType,
        range: request.headers.range,
        headers: { 'content-disposition': `attachment; filename="${file.filename}"`, 'cache-control': 'private, no-store' },
      });
    },
  );

  app.delete(
    '/admin/tracks/:trackId',
    {
      onRequest: admin,
      schema: {
        operationId: 'MOD-11',
        summary: 'Admin delete track',
        tags: ['Moderation'],
        security: bearerAuth,
        params: TrackParams,
        querystring: z.object({ reason: z.string().max(1000).optional() }),
        response: { 200: MessageResponseSchema },
      },
    },
    async (request) => {
      await lifecycle.delete(request.params.trackId, requireAdmin(request), true, String(request.id));
      return { message: 'Track removed.' };
    },
  );
};
