import { InternalClient } from '@msp/http';
import { AppError } from '@msp/errors';
import { INTERNAL_OPERATIONS, type ProbeResult } from '@msp/contracts';

export type { ProbeResult };

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
    try {
      // Validated: the answer decides whether an upload is kept.
      const answer = await this.http.send(INTERNAL_OPERATIONS.mediaProbe, { body: { bucket, key } }, { validate: true });
      if (answer.body === undefined) throw new Error('media-processing answered without a body');
      return answer.body;
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The audio could not be checked right now; try again.', { cause: err, headers: { 'retry-after': '5' } });
    }
  }
}
