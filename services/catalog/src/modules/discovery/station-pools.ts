import type { StationPick } from './discovery.repository.js';

/**
 * A station's day is the same for every viewer (R18: fixed for the day; R7 is applied per viewer
 * on top), so each replica keeps the pools it computed for a short while: a station page then costs
 * the page's rows, not the pool's index walk and md5 ordering, and its total is the pool's length,
 * counted once. A pool is at most `ttlMs` old: a track that leaves the station meanwhile (made
 * private, deleted, its artist banned) is dropped from the page it would appear on, and the total
 * catches up when the pool is recomputed. Concurrent misses share one computation; at most `max`
 * pools are kept (oldest first out).
 */
export class StationPools {
  private readonly pools = new Map<string, { at: number; picks: Promise<StationPick[]> }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly max = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, load: () => Promise<StationPick[]>): Promise<StationPick[]> {
    const hit = this.pools.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.picks;
    const picks = load();
    this.pools.delete(key);
    this.pools.set(key, { at: this.now(), picks });
    picks.catch(() => this.pools.delete(key));
    while (this.pools.size > this.max) this.pools.delete(this.pools.keys().next().value!);
    return picks;
  }
}
