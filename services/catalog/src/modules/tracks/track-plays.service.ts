import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { clientHash, listenerKey, type PlayCounting } from '../insights/play-counting.js';
import type { PlayLogRepository, PlaySource } from '../insights/play-log.repository.js';
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
  /** The counting rules and the play log with its rollups (modules/insights, docs/insights.md). */
  counting: PlayCounting;
  playLog: PlayLogRepository;
  /** Salt of the anonymous listener's daily client hash. */
  clientSalt: string;
}

/**
 * TRK-17, TRK-18 (R9): every play and completion goes to the play log; the counting rules decide
 * whether it counts (docs/insights.md), and the counts, rollups and the listener's history
 * (USR-17) change in the same statement.
 */
export class TrackPlaysService {
  constructor(private readonly deps: TrackPlaysServiceDeps) {}

  async play(
    trackId: number,
    caller: Caller | null,
    secretToken: string | undefined,
    listener: { ip: string; userAgent: string },
    kind: 'play' | 'complete',
    source: PlaySource | null = null,
  ): Promise<{ message: string; playId: string }> {
    const row = await this.deps.reads.byId(trackId, caller?.userId ?? 0);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    const viaToken = !!secretToken && secretToken === row.secretToken;
    if (!viaToken) this.deps.access.check(row, caller);
    else if (row.state !== 'FINISHED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    else if (caller?.role !== 'ADMIN' && (row.artistBanned || row.blocked)) throw new AppError('TRACK_NOT_FOUND');
    if (row.access === 'BLOCKED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_PLAYABLE', 'This track cannot be played.');
    const who = listenerKey(caller?.userId ?? null, listener.ip, listener.userAgent);
    const now = new Date();
    const hash = caller ? null : clientHash(this.deps.clientSalt, listener.ip, now);
    const flag = await this.deps.counting.judge({ kind, trackId, who, userAgent: listener.userAgent, now });
    const logged = await this.deps.playLog.record({
      at: now,
      trackId,
      artistId: row.artistId,
      kind,
      listenerId: caller?.userId ?? null,
      clientHash: hash,
      source,
      seconds: kind === 'complete' ? row.durationSeconds : null,
      flag,
    });
    if (kind === 'play') await this.deps.counting.rememberPlay(logged.id, trackId, who);
    // The play's statement also recorded it in the listener's history (USR-17, unless showHistory
    // is off): the cached outline of that history is stale now.
    if (kind === 'play' && caller) await this.deps.historyIndex.forget(caller.userId);
    const playId = logged.id;
    if (kind === 'play') return { message: logged.counted ? 'Play counted.' : 'Play already counted.', playId };
    return { message: logged.counted ? 'Completed play counted.' : 'Completed play already counted.', playId };
  }
}
