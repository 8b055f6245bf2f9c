import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { z } from 'zod';
import type { DeviceInfo, TrackSchema, UploadAcceptedSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, clientAddress, multipartParts, operation, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { sendObject } from '../media/send-object.js';
import { UpdateJsonSchema, UpdateMultipartSchema, type TrackUpdate } from '../uploads/upload-fields.js';
import type { UploadSource } from '../uploads/upload-receiver.js';
import type { TrackLifecycleService } from './track-lifecycle.service.js';
import type { TrackPlaysService } from './track-plays.service.js';
import type { TrackReadsService } from './track-reads.service.js';
import type { TrackUploadService } from './track-upload.service.js';

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

  app.route({
    ...operation('TRK-1'),
    handler: async (request, reply) => {
      const result = await uploads.upload(uploadSource(request), requireCaller(request), 'v1', String(request.id));
      return reply.code(result.status).send(result.body as z.infer<typeof TrackSchema>);
    },
  });

  app.route({
    ...operation('TRK-2'),
    handler: async (request, reply) => {
      const result = await uploads.upload(uploadSource(request), requireCaller(request), 'v2', String(request.id));
      return reply.code(201).send(result.body as z.infer<typeof UploadAcceptedSchema>);
    },
  });

  app.route({
    ...operation('TRK-3'),
    handler: async (request) => lifecycle.status(request.params.trackId, requireCaller(request)),
  });

  app.route({
    ...operation('TRK-4'),
    handler: async (request, reply) => reply.code(202).send(await lifecycle.retry(request.params.trackId, requireCaller(request), String(request.id))),
  });

  app.route({
    ...operation('TRK-5'),
    handler: async (request) => lifecycle.publish(request.params.trackId, requireCaller(request), String(request.id)),
  });

  app.route({
    ...operation('TRK-6'),
    handler: async (request) => reads.get(request.params.trackId, callerFrom(request)),
  });

  app.route({
    ...operation('TRK-7'),
    handler: async (request) => reads.getOwn(request.params.trackId, requireCaller(request)),
  });

  app.route({
    ...operation('TRK-8'),
    handler: async (request) => {
      const caller = requireCaller(request);
      const { input, cover } = await readUpdate(request);
      return lifecycle.update(request.params.trackId, caller, input, cover, String(request.id));
    },
  });

  app.route({
    ...operation('TRK-9'),
    handler: async (request) => {
      await lifecycle.delete(request.params.trackId, requireCaller(request), false, String(request.id));
      return { message: 'Track deleted.' };
    },
  });

  app.route({
    ...operation('TRK-10'),
    handler: async (request, reply) => {
      await lifecycle.deleteCover(request.params.trackId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('TRK-11'),
    handler: async (request) => lifecycle.secretToken(request.params.trackId, requireCaller(request)),
  });

  app.route({
    ...operation('TRK-12'),
    handler: async (request) => lifecycle.regenerateToken(request.params.trackId, requireCaller(request)),
  });

  app.route({
    ...operation('TRK-13'),
    handler: async (request) => reads.byToken(request.params.token, callerFrom(request)),
  });

  app.route({
    ...operation('TRK-14'),
    handler: async (request) => reads.resolve(request.params.trackSlug, callerFrom(request)),
  });

  app.route({
    ...operation('TRK-15'),
    handler: async (request) => reads.waveformUrl(request.params.trackId, callerFrom(request)),
  });

  app.route({
    ...operation('TRK-16'),
    handler: async (request) => reads.embed(request.params.trackId, callerFrom(request)),
  });

  for (const [id, kind] of [
    ['TRK-17', 'play'],
    ['TRK-18', 'complete'],
  ] as const) {
    app.route({
      ...operation(id),
      handler: async (request, reply) => {
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
    });
  }

  app.route({
    ...operation('TRK-19'),
    handler: async (request, reply) => {
      const file = await reads.download(request.params.trackId, requireCaller(request));
      return sendObject(reply, storage, file.key, {
        contentType: file.contentType,
        range: request.headers.range,
        headers: { 'content-disposition': `attachment; filename="${file.filename}"`, 'cache-control': 'private, no-store' },
      });
    },
  });

  app.route({
    ...operation('MOD-11'),
    handler: async (request) => {
      await lifecycle.delete(request.params.trackId, requireAdmin(request), true, String(request.id));
      return { message: 'Track removed.' };
    },
  });
};
