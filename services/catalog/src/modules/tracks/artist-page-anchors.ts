import { SharedTtlCache } from '../../shared-cache.js';

/** Where a deep page of an artist's public tracks starts: the listed track at a multiple of ANCHOR_STEP. */
export interface PageAnchor {
  /** `created_at` as PostgreSQL printed it (microseconds kept; read back as timestamptz). */
  createdAt: string;
  id: number;
}

/** Positions 100, 200, … of an artist's list (newest first) are anchors. */
export const ANCHOR_STEP = 100;

/**
 * Deep pages of a big artist's public tracks (USR-18/TRK-22/TRK-23 for others) without walking the
 * whole offset each time: each replica keeps, per artist, the sort keys of every ANCHOR_STEP-th
 * listed track (computed by one index-only walk of the artist's list), so a page at offset `o`
 * seeks to the anchor at or before `o` and skips at most ANCHOR_STEP - 1 entries. Page 100 of an
 * artist with 5,000 tracks skipped 2,000 index entries per request; now at most 99.
 *
 * An entry is at most `ttlMs` old. Meanwhile a page is still exact for the tracks that existed when
 * the anchors were taken (the seek is by sort key, so a deleted or hidden anchor track still marks
 * its place and rows are read as they are now); a track published since then shows on the first
 * pages (which never use anchors) and reaches the deeper ones within `ttlMs` (SharedTtlCache:
 * shared misses, failures forgotten, at most `max` artists).
 */
export class ArtistPageAnchors {
  private readonly cache: SharedTtlCache<number, PageAnchor[]>;

  constructor(ttlMs = 30_000, max = 2_000, now: () => number = Date.now) {
    this.cache = new SharedTtlCache(ttlMs, max, now);
  }

  /** The anchor for `offset` and what remains to skip from it; null before the first anchor. */
  async anchorFor(artistId: number, offset: number, load: () => Promise<PageAnchor[]>): Promise<{ anchor: PageAnchor; skip: number } | null> {
    const index = Math.floor(offset / ANCHOR_STEP) - 1;
    if (index < 0) return null;
    const anchors = await this.cache.get(artistId, load);
    // Past the last anchor (the list shrank or the page is beyond the end): from the last one.
    const at = Math.min(index, anchors.length - 1);
    if (at < 0) return null;
    return { anchor: anchors[at]!, skip: offset - (at + 1) * ANCHOR_STEP };
  }
}
