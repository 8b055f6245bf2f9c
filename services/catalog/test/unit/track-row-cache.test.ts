import { describe, expect, it } from 'vitest';
import { TrackRowCache } from '../../src/modules/tracks/track-row-cache.js';

describe('TrackRowCache (parsed rows by row version)', () => {
  it('keys a row by its id and the versions of its track row and artist row', () => {
    expect(TrackRowCache.key(7, '1001', '99')).toBe('7:1001:99');
    expect(TrackRowCache.key(7, '1001', null)).toBe('7:1001:');
    expect(TrackRowCache.key(7, '1002', '99')).not.toBe(TrackRowCache.key(7, '1001', '99'));
    expect(TrackRowCache.key(7, '1001', '100')).not.toBe(TrackRowCache.key(7, '1001', '99'));
  });

  it('holds at most `max` rows, the oldest out first, and nothing when max is 0', () => {
    const cache = new TrackRowCache<{ id: number }>(2);
    cache.set('1:a:', { id: 1 });
    cache.set('2:a:', { id: 2 });
    cache.set('3:a:', { id: 3 });
    expect(cache.size).toBe(2);
    expect(cache.get('1:a:')).toBeUndefined();
    expect(cache.get('3:a:')).toEqual({ id: 3 });
    const off = new TrackRowCache<{ id: number }>(0);
    off.set('1:a:', { id: 1 });
    expect(off.get('1:a:')).toBeUndefined();
  });

  it('forgets a row after maxAgeMs (a 32-bit xmin never comes round within it)', () => {
    let now = 0;
    const cache = new TrackRowCache<{ id: number }>(10, 1_000, () => now);
    cache.set('1:a:', { id: 1 });
    now = 1_000;
    expect(cache.get('1:a:')).toEqual({ id: 1 });
    now = 1_001;
    expect(cache.get('1:a:')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
