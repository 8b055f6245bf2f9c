import { SharedTtlCache } from '../../shared-cache.js';
import type { StationPick } from './discovery.repository.js';

/**
 * A station's day is the same for every viewer (R18: fixed for the day; R7 is applied per viewer
 * on top), so each replica keeps the pools it computed for a short while: a station page then costs
 * the page's rows, not the pool's index walk and md5 ordering, and its total is the pool's length,
 * counted once. A pool is at most `ttlMs` old: a track that leaves the station meanwhile (made
 * private, deleted, its artist banned) is dropped from the page it would appear on, and the total
 * catches up when the pool is recomputed (SharedTtlCache: shared misses, failures forgotten, at
 * most `max` pools).
 */
export class StationPools extends SharedTtlCache<string, StationPick[]> {
  constructor(ttlMs = 60_000, max = 1_000, now: () => number = Date.now) {
    super(ttlMs, max, now);
  }
}
