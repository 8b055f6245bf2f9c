import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SoundService } from './sound.service.js';

/** The uploader's sound report (docs/sound.md). */
export const soundModule: FastifyPluginAsyncZod<{ sound: SoundService }> = async (app, { sound }) => {
  app.route({
    ...operation('SND-1'),
    handler: async (request) => sound.report(request.params.trackId, requireCaller(request)),
  });
};
