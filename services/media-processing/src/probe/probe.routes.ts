import { internalRoute, type FastifyPluginAsyncZod } from '@msp/http';
import { type ObjectStorage } from '@msp/storage';
import type { MediaBinaries } from '../media/ffmpeg.js';
import { runMedia } from '../media/run.js';

import { INTERNAL_OPERATIONS, type ProbeResult } from '@msp/contracts';

/** Service-to-service (catalog, R11): not under /api, hidden from OpenAPI, never routed by the gateway. */
export const PROBE_ROUTE = INTERNAL_OPERATIONS.mediaProbe.path;

interface FfprobeJson {
  format?: { format_name?: string; duration?: string };
  streams?: Array<{ codec_type?: string; codec_name?: string; nb_read_packets?: string; disposition?: { attached_pic?: number } }>;
}

const UNREADABLE: ProbeResult = { readable: false, formatName: null, durationSeconds: null, audioStreams: [], videoStreams: 0 };

/**
 * ffprobe over a short-lived presigned URL (it reads only the bytes it needs, seeking with
 * ranges), counting the packets of the first 10 s so a file whose header parses but whose audio
 * does not is refused too.
 */
export const probeModule: FastifyPluginAsyncZod<{ binaries: MediaBinaries; storageFor: (bucket: string) => ObjectStorage }> = async (
  app,
  { binaries, storageFor },
) => {
  app.route({
    ...internalRoute(INTERNAL_OPERATIONS.mediaProbe),
    handler: async (request) => {
      const { bucket, key } = request.body;
      const url = await storageFor(bucket).presignedGet(key, 300);
      let out: string;
      try {
        out = await runMedia(
          binaries.ffprobe.path,
          ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-count_packets', '-read_intervals', '%+10', url],
          { timeoutMs: 20_000 },
        );
      } catch (err) {
        request.log.info({ err: (err as Error).message, key }, 'probe: unreadable');
        return UNREADABLE;
      }
      const data = JSON.parse(out) as FfprobeJson;
      const streams = data.streams ?? [];
      const duration = Number(data.format?.duration);
      return {
        readable: true,
        formatName: data.format?.format_name ?? null,
        durationSeconds: Number.isFinite(duration) ? duration : null,
        audioStreams: streams
          .filter((s) => s.codec_type === 'audio')
          .map((s) => ({ codecName: s.codec_name ?? 'unknown', packets: Number(s.nb_read_packets ?? 0) || 0 })),
        videoStreams: streams.filter((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1).length,
      };
    },
  });
};
