import { describe, expect, it } from 'vitest';
import { ArtistPageAnchors, type PageAnchor } from '../../src/modules/tracks/artist-page-anchors.js';

const anchors = (n: number): PageAnchor[] => Array.from({ length: n }, (_, i) => ({ createdAt: `t${(i + 1) * 100}`, id: (i + 1) * 100 }));

describe('ArtistPageAnchors (deep pages of a big artist seek to a cached sort key)', () => {
  it('picks the anchor at or before the offset and what remains to skip; none before the first', async () => {
    const cache = new ArtistPageAnchors(30_000, 10, () => 0);
    const load = async () => anchors(50);
    expect(await cache.anchorFor(1, 99, load)).toBeNull();
    expect(await cache.anchorFor(1, 100, load)).toEqual({ anchor: { createdAt: 't100', id: 100 }, skip: 0 });
    expect(await cache.anchorFor(1, 2050, load)).toEqual({ anchor: { createdAt: 't2000', id: 2000 }, skip: 50 });
    // Beyond the last anchor: from the last one, skipping the rest.
    expect(await cache.anchorFor(1, 7000, load)).toEqual({ anchor: { createdAt: 't5000', id: 5000 }, skip: 2000 });
    // An artist with fewer than 101 tracks has no anchor: the plain offset.
    expect(await cache.anchorFor(2, 500, async () => [])).toBeNull();
  });

  it('loads once per lifetime and artist, shares concurrent misses, and forgets a failed load', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ArtistPageAnchors(30_000, 10, () => now);
    const load = async () => {
      loads += 1;
      return anchors(3);
    };
    await Promise.all([cache.anchorFor(1, 200, load), cache.anchorFor(1, 300, load)]);
    expect(loads).toBe(1);
    now = 29_999;
    await cache.anchorFor(1, 200, load);
    expect(loads).toBe(1);
    now = 30_000;
    await cache.anchorFor(1, 200, load);
    expect(loads).toBe(2);
    await expect(cache.anchorFor(3, 200, () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    await Promise.resolve();
    expect(await cache.anchorFor(3, 200, load)).toEqual({ anchor: { createdAt: 't200', id: 200 }, skip: 0 });
  });
});
