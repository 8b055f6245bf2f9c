import { InternalClient } from '@msp/http';
import { z } from 'zod';
import { AppError } from '@msp/errors';

/** media-processing's internal probe (R11); the path and answer mirror services/media-processing/src/probe. */
const PROBE_ROUTE = '/internal/media/probe';

const ProbeResultSchema = z.object({
  readable: z.boolean(),
  formatName: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  audioStreams: z.array(z.object({ codecName: z.string(), packets: z.number().int() })),
  videoStreams: z.number().int(),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;

/**
 * ffmpeg lives only in the media worker: catalog asks it to ffprobe the stored original before
 * answering 201. No answer in time means the upload cannot be judged: 503, nothing kept.
 */
export class MediaClient {
  private readonly http: InternalClient;

  constructor(baseUrl: string, timeoutMs: number) {
    this.http = new InternalClient({ target: 'media-processing', baseUrl, timeoutMs });
  }

  async probe(bucket: string, key: string): Promise<ProbeResult> {
    let answer: unknown;
    try {
      answer = await this.http.post(PROBE_ROUTE, { bucket, key });
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The audio could not be checked right now; try again.', { cause: err, headers: { 'retry-after': '5' } });
    }
    // Validated: the answer decides whether an upload is kept.
    return ProbeResultSchema.parse(answer);
  }
}
