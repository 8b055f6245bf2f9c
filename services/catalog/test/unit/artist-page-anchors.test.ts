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

  it("walks an artist's list once for all its deep pages (the lifetime, shared misses and failures are SharedTtlCache's, tested with StationPools)", async () => {
    let loads = 0;
    const cache = new ArtistPageAnchors(30_000, 10, () => 0);
    const load = async () => {
      loads += 1;
      return anchors(30);
    };
    await Promise.all([cache.anchorFor(1, 200, load), cache.anchorFor(1, 2_000, load), cache.anchorFor(1, 2_900, load)]);
    expect(loads).toBe(1);
    await cache.anchorFor(2, 200, load);
    expect(loads).toBe(2);
  });
});
