import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DiscoveryRepository, type SearchKind } from '../../src/modules/discovery/discovery.repository.js';
import { searchTerms } from '../../src/modules/discovery/search-query.js';

interface Sent {
  name?: string;
  text: string;
  values: unknown[];
}

/** A pool that records what it is sent: no word statistics, no completions, and `total` hits for a page. */
function recordingPool(total: number) {
  const sent: Sent[] = [];
  const pool = {
    query: async (config: Sent | string, values?: unknown[]) => {
      const q = typeof config === 'string' ? { text: config, values: values ?? [] } : config;
      sent.push(q);
      if (q.text.includes('count(*) OVER')) return { rows: total > 0 ? [{ type: 'TRACK', id: 1, total }] : [] };
      if (q.text.startsWith('SELECT count(*)::int AS total')) return { rows: [{ total }] };
      return { rows: [] };
    },
  };
  return { pool: pool as unknown as pg.Pool, sent, pages: () => sent.filter((q) => q.text.includes('count(*) OVER')) };
}

const search = (repo: DiscoveryRepository, q: string, kinds: SearchKind[], genre: string | null = null, page = 0) =>
  repo.search(searchTerms(q)!, kinds, 7, genre, page, 20);

describe('DSC-3 search statements (unit, no database)', () => {
  it('sends one named statement per shape, whatever the words, so PostgreSQL can keep a generic plan', async () => {
    const { pool, pages } = recordingPool(25);
    const repo = new DiscoveryRepository({} as never, {} as never, pool);
    await search(repo, 'night', ['TRACK']);
    await search(repo, 'summer', ['TRACK']);
    await search(repo, 'summer', ['TRACK', 'USER', 'PLAYLIST']);
    await search(repo, 'summer', ['TRACK', 'PLAYLIST'], 'house');
    const [a, b, all, genre] = pages();
    expect(a!.name).toMatch(/^catalog_search_[0-9a-f]{20}$/);
    expect(b!.name).toBe(a!.name);
    expect(b!.text).toBe(a!.text);
    expect(b!.values).toContain("'summer'");
    expect(new Set([a!.name, all!.name, genre!.name]).size).toBe(3);
    expect(genre!.values).toContain('house');
  });

  it('folds and parses the parameters once per statement (InitPlans), never per row', async () => {
    const { pool, pages } = recordingPool(25);
    const repo = new DiscoveryRepository({} as never, {} as never, pool);
    await search(repo, 'night lo', ['TRACK', 'USER', 'PLAYLIST']);
    const text = pages()[0]!.text;
    expect(text).toContain(`(SELECT to_tsquery('simple', msp_fold($5)))`);
    expect(text).toContain('(SELECT msp_fold($3))');
    // Every msp_fold of a parameter sits in its own scalar subquery.
    expect(text.match(/msp_fold\(\$\d+\)/g)!.length).toBe(text.match(/\(SELECT (to_tsquery\('simple', )?msp_fold\(\$\d+\)\)/g)!.length);
  });

  it('a page past the end counts through a named statement of the same shape', async () => {
    const { pool, sent } = recordingPool(0);
    const repo = new DiscoveryRepository({} as never, {} as never, pool);
    await search(repo, 'night', ['TRACK'], null, 3);
    const page = sent.find((q) => q.text.includes('count(*) OVER'))!;
    const count = sent.find((q) => q.text.startsWith('SELECT count(*)::int AS total'))!;
    expect(count.name).toBe(`${page.name}_count`);
  });
});
