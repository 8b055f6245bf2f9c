import type { Operations } from '../../operation-schema.js';
import { IdParamSchema } from '../../records/request.js';
import { LoudnessReportSchema } from '../../records/tracks.js';

/** The operations of catalog's sound module (services/catalog/src/modules/sound): contract row, input and output. */
export const CATALOG_SOUND = {
  'SND-1': {
    // SND: the uploader's sound report (docs/sound.md).
    method: 'GET',
    path: '/tracks/{trackId}/loudness',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Loudness report of a track (artist and admins)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'TRACK_NOT_FOUND', 'INVALID_TRACK_STATE'],

    // SND, INS: the artist's own sound report and insights, and a player's listening progress.
    scope: 'read',
    description:
      'EBU R 128 loudness of the original (integrated LUFS, range LU, true peak dBTP), the playback gain to the target loudness, the short-term loudness each second, and plain-words verdicts. 404 TRACK_NOT_FOUND for anybody but the artist and admins.',
    params: IdParamSchema('trackId'),
    response: { 200: LoudnessReportSchema },
  },
} satisfies Operations;
