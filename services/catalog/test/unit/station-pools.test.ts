import { describe, expect, it } from 'vitest';
import { StationPools } from '../../src/modules/discovery/station-pools.js';

describe('StationPools (a day pool shared by viewers for a short while)', () => {
  it('computes a pool once within its lifetime, again after it, and shares one computation between concurrent misses', async () => {
    let now = 0;
    let loads = 0;
    const pools = new StationPools(60_000, 10, () => now);
    const load = async () => {
      loads += 1;
      return [{ id: loads, artistId: 1, rank: 'a' }];
    };
    const [a, b] = await Promise.all([pools.get('genre:house', load), pools.get('genre:house', load)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    now = 59_999;
    await pools.get('genre:house', load);
    expect(loads).toBe(1);
    now = 60_000;
    expect(await pools.get('genre:house', load)).toEqual([{ id: 2, artistId: 1, rank: 'a' }]);
  });

  it('forgets a failed computation and keeps at most `max` pools, oldest out first', async () => {
    const pools = new StationPools(60_000, 2, () => 0);
    await expect(pools.get('x', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    let loads = 0;
    const load = async () => [{ id: ++loads, artistId: 1, rank: 'a' }];
    expect(await pools.get('x', load)).toEqual([{ id: 1, artistId: 1, rank: 'a' }]);
    await pools.get('y', load);
    await pools.get('z', load);
    await pools.get('x', load); // evicted by z: computed again
    expect(loads).toBe(4);
  });
});
