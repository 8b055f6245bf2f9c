import { describe, expect, it } from 'vitest';
import { exportJson, pages } from '../../src/account-export.js';

async function text(chunks: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts).toString();
}

describe('ACC-1 export parts: exportJson and pages', () => {
  it('streams a head, plain sections and row sections (in batches) as one valid JSON document', async () => {
    let calls = 0;
    const rows = pages<{ id: number }>(async (last) => {
      calls += 1;
      const from = (last?.id ?? 0) + 1;
      return from > 450 ? [] : Array.from({ length: Math.min(100, 451 - from) }, (_, i) => ({ id: from + i }));
    });
    const out = JSON.parse(
      await text(
        exportJson({ service: 'catalog', userId: 7 }, { profile: { big: 12n, when: new Date(0) }, empty: pages(async () => []), rows, none: undefined }),
      ),
    );
    expect(out.service).toBe('catalog');
    expect(out.profile).toEqual({ big: '12', when: '1970-01-01T00:00:00.000Z' });
    expect(out.empty).toEqual([]);
    expect(out.none).toBeNull();
    expect(out.rows.map((r: { id: number }) => r.id)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    // Five pages of rows and the empty one that ends them.
    expect(calls).toBe(6);
  });

  it('writes an empty head and no section as {}', async () => {
    expect(JSON.parse(await text(exportJson({}, {})))).toEqual({});
    expect(JSON.parse(await text(exportJson({}, { a: 1 })))).toEqual({ a: 1 });
  });
});
