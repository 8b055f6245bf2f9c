import multipart from '@fastify/multipart';
import { AppError } from '@msp/errors';
import { multipartParts, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ImageChanges, ImagesService } from './images.service.js';

function truthy(value: string): boolean {
  return ['true', '1', 'yes'].includes(value.trim().toLowerCase());
}

export const imagesModule: FastifyPluginAsyncZod<{ images: ImagesService; maxBytes: number }> = async (app, { images, maxBytes }) => {
  await app.register(multipart, {
    throwFileSizeLimit: true,
    limits: { fileSize: maxBytes, files: 2, fields: 4, parts: 6, fieldSize: 1024, headerPairs: 100 },
  });

  app.route({
    ...operation('USR-9'),
    handler: async (request) => {
      const caller = requireCaller(request);
      if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data.');
      const changes: ImageChanges = {};
      let seen = 0;
      // A body that ends before its closing boundary fails here (and in toBuffer) with 400 VALIDATION_FAILED.
      for await (const part of multipartParts(request.raw, () => request.parts())) {
        seen += 1;
        if (part.type === 'file') {
          // Read within the fileSize limit: a larger file throws 413 before it is all in memory.
          const data = await part.toBuffer();
          if (part.fieldname === 'profilePic') changes.avatar = data;
          else if (part.fieldname === 'coverPic') changes.cover = data;
        } else if (typeof part.value === 'string') {
          if (part.fieldname === 'removeProfilePic' && truthy(part.value) && changes.avatar === undefined) changes.avatar = 'remove';
          if (part.fieldname === 'removeCoverPic' && truthy(part.value) && changes.cover === undefined) changes.cover = 'remove';
        }
      }
      if (seen === 0 || (changes.avatar === undefined && changes.cover === undefined)) {
        throw AppError.validation([{ field: 'profilePic', message: 'Send profilePic, coverPic, removeProfilePic or removeCoverPic.' }]);
      }
      return images.apply(caller.userId, changes, String(request.id));
    },
  });

  app.route({
    ...operation('USR-10'),
    handler: async (request, reply) => {
      await images.apply(requireCaller(request).userId, { avatar: 'remove' }, String(request.id));
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('USR-11'),
    handler: async (request, reply) => {
      await images.apply(requireCaller(request).userId, { cover: 'remove' }, String(request.id));
      return reply.code(204).send();
    },
  });
};
