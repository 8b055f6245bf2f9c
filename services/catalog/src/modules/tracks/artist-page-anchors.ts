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
 * pages (which never use anchors) and reaches the deeper ones within `ttlMs`. Concurrent misses
 * share one computation; at most `max` artists are kept (oldest first out).
 */
export class ArtistPageAnchors {
  private readonly entries = new Map<number, { at: number; anchors: Promise<PageAnchor[]> }>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly max = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The anchor for `offset` and what remains to skip from it; null before the first anchor. */
  async anchorFor(artistId: number, offset: number, load: () => Promise<PageAnchor[]>): Promise<{ anchor: PageAnchor; skip: number } | null> {
    const index = Math.floor(offset / ANCHOR_STEP) - 1;
    if (index < 0) return null;
    const anchors = await this.get(artistId, load);
    // Past the last anchor (the list shrank or the page is beyond the end): from the last one.
    const at = Math.min(index, anchors.length - 1);
    if (at < 0) return null;
    return { anchor: anchors[at]!, skip: offset - (at + 1) * ANCHOR_STEP };
  }

  private get(artistId: number, load: () => Promise<PageAnchor[]>): Promise<PageAnchor[]> {
    const hit = this.entries.get(artistId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.anchors;
    const anchors = load();
    this.entries.delete(artistId);
    this.entries.set(artistId, { at: this.now(), anchors });
    anchors.catch(() => this.entries.delete(artistId));
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return anchors;
  }
}
