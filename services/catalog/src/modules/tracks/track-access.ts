import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { OneTrackFlags, ReadTrack, TrackReadsRepository } from './track-reads.repository.js';
import { canSee } from './track-rules.js';

/** The by-id checks every track route starts with (R2, R7, R14), one statement each. */
export class TrackAccess {
  constructor(private readonly reads: Pick<TrackReadsRepository, 'byId' | 'byIdForViewer'>) {}

  /** The row if the caller may see it, else 404 TRACK_NOT_FOUND (deleted, private, unfinished, blocked, artist gone or banned). */
  check(row: ReadTrack | null, caller: Caller | null): ReadTrack {
    if (!row || !canSee(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    return row;
  }

  async visible(trackId: number, caller: Caller | null): Promise<ReadTrack> {
    return this.check(await this.reads.byId(trackId, caller?.userId ?? 0), caller);
  }

  /** `visible` for a signed-in caller, with their flags of the track read in the same statement. */
  async visibleWithFlags(trackId: number, caller: Caller): Promise<{ row: ReadTrack; flags: OneTrackFlags }> {
    const read = await this.reads.byIdForViewer(trackId, caller.userId);
    return { row: this.check(read?.row ?? null, caller), flags: read!.flags };
  }

  /** Owner-only operations: 404 when the caller cannot see the track, else `notOwner` (403 or 404 per operation, docs/api.md). */
  async owned(trackId: number, caller: Caller, notOwner: 'FORBIDDEN' | 'TRACK_NOT_FOUND'): Promise<ReadTrack> {
    const row = await this.reads.byId(trackId, caller.userId);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (row.artistId === caller.userId) return row;
    if (notOwner === 'TRACK_NOT_FOUND') throw new AppError('TRACK_NOT_FOUND');
    this.check(row, caller);
    throw new AppError('FORBIDDEN', 'Only the artist may do this.');
  }
}
