import type { Redis } from 'ioredis';

/**
 * Positions 20, 40, … of a listener's visible history (latest play first) are anchors: a page of
 * the default size starts at one and walks only its own entries (5,000 entries: 250 anchors).
 */
export const HISTORY_ANCHOR_STEP = 20;

/** The history entry at an anchor position: its sort key. */
export interface HistoryAnchor {
  /** last_played_at, ISO 8601 (millisecond precision, as stored). */
  at: string;
  trackId: number;
}

/** What one walk of a listener's visible history tells: the total (USR-17) and the anchors of deep pages. */
export interface HistoryOutline {
  total: number;
  /** The anchors' step (HISTORY_ANCHOR_STEP when the outline was walked): an outline of another step is walked again. */
  step: number;
  /** anchors[k] is the entry at position (k + 1) × step. */
  anchors: HistoryAnchor[];
}

/** Where a page at `offset` starts: after its anchor, skipping fewer than the outline's step; null before the first anchor. */
export function historyStart(outline: HistoryOutline, offset: number): { anchor: HistoryAnchor; skip: number } | null {
  const at = Math.min(Math.floor(offset / outline.step) - 1, outline.anchors.length - 1);
  if (at < 0) return null;
  return { anchor: outline.anchors[at]!, skip: offset - (at + 1) * outline.step };
}

/**
 * USR-17's total and deep pages without walking the whole history on each request. Counting the
 * visible entries probes every entry (5,000 entries at 1M tracks: tens of ms), and a page at offset
 * 4,800 walked 4,800 entries before its own 20. One walk gives both (the total, and the sort key of
 * every HISTORY_ANCHOR_STEP-th visible entry); the outline is kept in Redis per listener, shared by
 * every replica: dropped when the listener's history changes (a play), and at most `ttlSeconds` old
 * otherwise, so a track of the history that someone else makes private, deletes or has banned (R2,
 * R14), or a new block (R7), moves the total and the deep pages' start within that time; the page's
 * content is always filtered as it is now (the seek is by sort key, so a hidden anchor still marks
 * its place).
 */
export class HistoryIndex {
  /**
   * `scope` names the database the outlines come from (every replica of one deployment shares it, so
   * a play on one replica drops the outline for all; test databases sharing a Redis never mix).
   */
  constructor(
    private readonly redis: Redis,
    private readonly scope: string,
    private readonly ttlSeconds = 30,
  ) {}

  private key(userId: number): string {
    return `catalog:history-outline:${this.scope}:${userId}`;
  }

  async get(userId: number, walk: () => Promise<HistoryOutline>): Promise<HistoryOutline> {
    const cached = await this.redis.get(this.key(userId)).catch(() => null); // Redis down: walk in SQL instead (the cache only saves work)
    const parsed = cached === null ? null : parseOutline(cached);
    if (parsed) return parsed;
    const outline = await walk();
    await this.redis.set(this.key(userId), JSON.stringify(outline), 'EX', this.ttlSeconds).catch(() => undefined); // Redis down: the next page walks again
    return outline;
  }

  /** The listener's history changed (a recorded play): the next deep or full page walks again. */
  async forget(userId: number): Promise<void> {
    await this.redis.del(this.key(userId)).catch(() => undefined); // Redis down: the cached outline expires within its TTL
  }
}

/** A cached outline, or null when the text is not one (an older format or step, a foreign value). */
function parseOutline(text: string): HistoryOutline | null {
  try {
    const value = JSON.parse(text) as Partial<HistoryOutline>;
    if (typeof value.total !== 'number' || value.step !== HISTORY_ANCHOR_STEP || !Array.isArray(value.anchors)) return null;
    return value as HistoryOutline;
  } catch {
    return null;
  }
}
