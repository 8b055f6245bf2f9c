/**
 * A per-replica cache of computed values: an entry is at most `ttlMs` old, concurrent misses share
 * one computation (the promise is cached), a failed computation is forgotten at once, and at most
 * `max` entries are kept (oldest first out). Station pools and artist page anchors use it.
 */
export class SharedTtlCache<K, V> {
  private readonly entries = new Map<K, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = load();
    this.entries.delete(key);
    this.entries.set(key, { at: this.now(), value });
    value.catch(() => this.entries.delete(key));
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** Drops an entry: the next `get` computes it again. */
  forget(key: K): void {
    this.entries.delete(key);
  }
}
