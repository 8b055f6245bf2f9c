import { describe, expect, it } from 'vitest';
import { InternalReadsService, type InternalReads } from './internal.service.js';

function recording() {
  const calls: unknown[][] = [];
  const reads: InternalReads = {
    relationships: async (...args) => {
      calls.push(['relationships', ...args]);
      return '{}';
    },
  };
  return { calls, service: new InternalReadsService(reads) };
}

describe('internal batch reads', () => {
  it('asks once per page, duplicates collapsed', async () => {
    const { calls, service } = recording();
    await service.relationships({ viewerId: 1, userIds: [2, 2, 3] });
    expect(calls).toEqual([['relationships', 1, [2, 3]]]);
  });

  it('answers an empty page without a query', async () => {
    const { calls, service } = recording();
    expect(JSON.parse(await service.relationships({ viewerId: 1, userIds: [] }))).toEqual({ items: [] });
    expect(calls).toEqual([]);
  });
});
