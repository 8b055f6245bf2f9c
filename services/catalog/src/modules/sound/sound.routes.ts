import { IdParamSchema, LoudnessReportSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SoundService } from './sound.service.js';

/** The uploader's sound report (docs/sound.md). */
export const soundModule: FastifyPluginAsyncZod<{ sound: SoundService }> = async (app, { sound }) => {
  app.route({
    ...operation('SND-1'),
    schema: {
      description:
        'EBU R 128 loudness of the original (integrated LUFS, range LU, true peak dBTP), the playback gain to the target loudness, the short-term loudness each second, and plain-words verdicts. 404 TRACK_NOT_FOUND for anybody but the artist and admins.',
      params: IdParamSchema('trackId'),
      response: { 200: LoudnessReportSchema },
    },
    handler: async (request) => sound.report(request.params.trackId, requireCaller(request)),
  });
};
