/**
 * Parsed track rows (each with its artist's summary) by ROW VERSION, per replica: the key is the
 * track's id with PostgreSQL's `xmin` of its `tracks` row and of its artist's `user_summaries` row.
 * Every UPDATE writes a new row version with a new `xmin`, so an entry is never stale: a list read
 * asks PostgreSQL for the page's ids and versions (a few narrow columns), takes the rows whose
 * versions it holds from here and reads only the others in full. A changed counter, title or artist
 * is a miss, never an old answer. Nothing to invalidate, so the cache needs no events; it is bounded
 * (oldest entries out first) and an entry lives at most `maxAgeMs` (10 minutes), far below the
 * ~4 billion transactions after which a 32-bit `xmin` could come round to the same value.
 *
 * Why: 20 full track rows (42 columns, dates, arrays) cost catalog ~0.6 ms of CPU to read, their
 * versions ~0.07 ms (bench/track-row-reads.ts; whole requests: docs/benchmarks/catalog-reads.md).
 */
export class TrackRowCache<Row extends { id: number }> {
  private readonly rows = new Map<string, { row: Row; at: number }>();

  constructor(
    private readonly max = 10_000,
    private readonly maxAgeMs = 600_000,
    private readonly now: () => number = Date.now,
  ) {}

  static key(id: number, trackVersion: string, artistVersion: string | null): string {
    return `${id}:${trackVersion}:${artistVersion ?? ''}`;
  }

  get(key: string): Row | undefined {
    const entry = this.rows.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.maxAgeMs) {
      this.rows.delete(key);
      return undefined;
    }
    return entry.row;
  }

  set(key: string, row: Row): void {
    if (this.max <= 0) return;
    // A full read of a version already held (a by-id read, two misses at once) renews it: young end.
    this.rows.delete(key);
    this.rows.set(key, { row, at: this.now() });
    // Oldest first out (insertion order is age).
    if (this.rows.size > this.max) this.rows.delete(this.rows.keys().next().value!);
  }

  get size(): number {
    return this.rows.size;
  }
}
