import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { HistoryIndex } from './history-index.js';
import type { TrackAccess } from './track-access.js';
import type { TrackReadsRepository } from './track-reads.repository.js';
import { isOwnerOrAdmin } from './track-rules.js';
import type { TracksRepository } from './tracks.repository.js';

export interface TrackPlaysServiceDeps {
  repo: TracksRepository;
  reads: TrackReadsRepository;
  access: TrackAccess;
  redis: Redis;
  historyIndex: HistoryIndex;
  playDedupSeconds: number;
}

/** TRK-17, TRK-18 (R9): counted plays and completions, and the listener's history (USR-17). */
export class TrackPlaysService {
  constructor(private readonly deps: TrackPlaysServiceDeps) {}

  async play(
    trackId: number,
    caller: Caller | null,
    secretToken: string | undefined,
    listener: { ip: string; userAgent: string },
    kind: 'play' | 'complete',
  ): Promise<{ message: string }> {
    const row = await this.deps.reads.byId(trackId, caller?.userId ?? 0);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    const viaToken = !!secretToken && secretToken === row.secretToken;
    if (!viaToken) this.deps.access.check(row, caller);
    else if (row.state !== 'FINISHED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    else if (caller?.role !== 'ADMIN' && (row.artistBanned || row.blocked)) throw new AppError('TRACK_NOT_FOUND');
    if (row.access === 'BLOCKED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_PLAYABLE', 'This track cannot be played.');
    const who = caller ? `u${caller.userId}` : `a${createHash('sha256').update(`${listener.ip}\n${listener.userAgent}`).digest('base64url').slice(0, 22)}`;
    const fresh = await this.deps.redis.set(`catalog:${kind}:${trackId}:${who}`, '1', 'EX', this.deps.playDedupSeconds, 'NX');
    if (fresh === 'OK') await this.deps.repo.countPlay(trackId, kind);
    if (kind === 'play' && caller && ((await this.deps.reads.userFlags(caller.userId))?.showHistory ?? true)) {
      await this.deps.repo.recordHistory(caller.userId, trackId, new Date());
      await this.deps.historyIndex.forget(caller.userId);
    }
    if (kind === 'play') return { message: fresh === 'OK' ? 'Play counted.' : 'Play already counted.' };
    return { message: fresh === 'OK' ? 'Completed play counted.' : 'Completed play already counted.' };
  }
}
