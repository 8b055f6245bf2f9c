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

/** What a page at an offset needs of the outline: the total (USR-17) and where the page starts. */
export interface HistoryLocation {
  total: number;
  start: { anchor: HistoryAnchor; skip: number } | null;
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
 *
 * The outline is a Redis hash (`t` the total, `n` the number of anchors, `1`…`n` the anchors as
 * `<at>|<trackId>`), so a page reads the total and its own anchor (HMGET: a few short strings)
 * instead of the whole outline (5,000 entries: 250 anchors, 12.8 KB of JSON parsed per page).
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
    return `catalog:history-anchors:${HISTORY_ANCHOR_STEP}:${this.scope}:${userId}`;
  }

  /** The total and the start of the page at `offset`, from the cached outline, or from `walk` (then cached). */
  async locate(userId: number, offset: number, walk: () => Promise<HistoryOutline>): Promise<HistoryLocation> {
    const key = this.key(userId);
    // The anchor a page at `offset` starts after: number k (1-based); 0 for the first pages.
    const k = Math.floor(offset / HISTORY_ANCHOR_STEP);
    const got = await this.redis.hmget(key, 't', 'n', String(Math.max(k, 1))).catch(() => null); // Redis down: walk in SQL instead (the cache only saves work)
    const total = got?.[0] == null ? NaN : Number(got[0]);
    const n = got?.[1] == null ? NaN : Number(got[1]);
    if (Number.isInteger(total) && Number.isInteger(n)) {
      if (k === 0 || n === 0) return { total, start: null };
      // Past the last anchor (a page past the end): the last anchor, read on its own.
      const at = Math.min(k, n);
      const text = at === k ? got![2]! : await this.redis.hget(key, String(at)).catch(() => null); // Redis down: walk in SQL below
      const anchor = parseAnchor(text);
      if (anchor) return { total, start: { anchor, skip: offset - at * HISTORY_ANCHOR_STEP } };
    }
    const outline = await walk();
    const fields: Record<string, string | number> = { t: outline.total, n: outline.anchors.length };
    outline.anchors.forEach((a, i) => (fields[String(i + 1)] = `${a.at}|${a.trackId}`));
    await this.redis
      .multi()
      .del(key)
      .hset(key, fields)
      .expire(key, this.ttlSeconds)
      .exec()
      .catch(() => undefined); // Redis down: the next page walks again
    return { total: outline.total, start: historyStart(outline, offset) };
  }

  /** The listener's history changed (a recorded play): the next deep or full page walks again. */
  async forget(userId: number): Promise<void> {
    await this.redis.del(this.key(userId)).catch(() => undefined); // Redis down: the cached outline expires within its TTL
  }
}

/** A cached anchor (`<at>|<trackId>`), or null when the text is not one. */
function parseAnchor(text: string | null | undefined): HistoryAnchor | null {
  if (!text) return null;
  const bar = text.lastIndexOf('|');
  const trackId = Number(text.slice(bar + 1));
  const at = text.slice(0, bar);
  if (bar <= 0 || !Number.isInteger(trackId) || Number.isNaN(Date.parse(at))) return null;
  return { at, trackId };
}
