import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { clientHash, listenerKey, type PlayCounting } from '../insights/play-counting.js';
import type { PlayLogRepository, PlaySource } from '../insights/play-log.repository.js';
import type { HistoryIndex } from './history-index.js';
import type { TrackAccess } from './track-access.js';
import type { ReadTrack, TrackReadsRepository } from './track-reads.repository.js';
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
 * Gathers the calls made in one turn of the event loop and answers them from ONE call of `load`
 * (its i-th answer is the i-th key's): the plays arriving together read their tracks in one
 * statement instead of one each.
 */
class TickBatcher<K, V> {
  private pending: Array<{ key: K; resolve(value: V): void; reject(err: unknown): void }> = [];

  constructor(private readonly load: (keys: K[]) => Promise<V[]>) {}

  get(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      if (this.pending.push({ key, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const values = await this.load(batch.map((p) => p.key));
      batch.forEach((p, i) => p.resolve(values[i]!));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}

/**
 * TRK-17, TRK-18 (R9): every play and completion goes to the play log; the counting rules decide
 * whether it counts (docs/insights.md), and the counts, rollups and the listener's history
 * (USR-17) change in the same statement.
 */
export class TrackPlaysService {
  /** The tracks of the plays arriving together, read in one statement (`byIdsForViewers`). */
  private readonly tracks: TickBatcher<{ id: number; viewerId: number }, ReadTrack | null>;

  constructor(private readonly deps: TrackPlaysServiceDeps) {
    this.tracks = new TickBatcher((pairs) => deps.reads.byIdsForViewers(pairs));
  }

  async play(
    trackId: number,
    caller: Caller | null,
    secretToken: string | undefined,
    listener: { ip: string; userAgent: string },
    kind: 'play' | 'complete',
    source: PlaySource | null = null,
  ): Promise<{ message: string; playId: string }> {
    const row = await this.tracks.get({ id: trackId, viewerId: caller?.userId ?? 0 });
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
    // The play's statement also recorded it in the listener's history (USR-17, unless showHistory
    // is off): the cached outline of that history is stale now. Both Redis calls go out together
    // (and with other plays' calls: the plays' Redis connection pipelines what one turn sends).
    if (kind === 'play')
      await Promise.all([this.deps.counting.rememberPlay(logged.id, trackId, who), caller ? this.deps.historyIndex.forget(caller.userId) : undefined]);
    const playId = logged.id;
    if (kind === 'play') return { message: logged.counted ? 'Play counted.' : 'Play already counted.', playId };
    return { message: logged.counted ? 'Completed play counted.' : 'Completed play already counted.', playId };
  }
}
