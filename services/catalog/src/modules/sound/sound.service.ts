import type { LoudnessReport } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { isOwnerOrAdmin } from '../tracks/track-rules.js';
import { gainDb, storedLoudness, verdicts } from './loudness-rules.js';
import type { SoundRepository } from './sound.repository.js';

/** SND-1: the uploader's loudness report. */
export class SoundService {
  constructor(
    private readonly reads: Pick<TrackReadsRepository, 'byId'>,
    private readonly repo: Pick<SoundRepository, 'report'>,
    private readonly targetLufs: number,
  ) {}

  /**
   * The artist's and admins' only: anybody else gets 404 TRACK_NOT_FOUND, as for a private track,
   * so the report never tells a stranger the track exists. 409 INVALID_TRACK_STATE before FINISHED.
   */
  async report(trackId: number, caller: Caller): Promise<LoudnessReport> {
    const row = await this.reads.byId(trackId, caller.userId);
    if (!row || row.deletedAt || !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    if (row.state !== 'FINISHED') throw new AppError('INVALID_TRACK_STATE', 'The track is not processed yet: its loudness is measured during processing.');
    const loudness = storedLoudness(row.loudness);
    const report = await this.repo.report(trackId);
    return {
      trackId,
      integratedLufs: loudness?.integratedLufs ?? null,
      rangeLu: loudness?.rangeLu ?? null,
      truePeakDbtp: loudness?.truePeakDbtp ?? null,
      gainDb: loudness ? gainDb(loudness, this.targetLufs) : 0,
      targetLufs: this.targetLufs,
      shortTermLufs: loudness ? (report?.shortTermLufs ?? []) : [],
      verdicts: verdicts(loudness, this.targetLufs),
      duplicateOf: report?.duplicateOf ?? null,
    };
  }
}
