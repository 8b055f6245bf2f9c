import { describe, expect, it } from 'vitest';
import { InternalReadsService, type InternalReads } from './internal.service.js';

function recording() {
  const calls: unknown[][] = [];
  const reads: InternalReads = {
    engagement: async (...args) => {
      calls.push(['engagement', ...args]);
      return '{}';
    },
    relationships: async (...args) => {
      calls.push(['relationships', ...args]);
      return '{}';
    },
  };
  return { calls, service: new InternalReadsService(reads) };
}

describe('internal batch reads', () => {
  it('asks once per page, duplicates collapsed and the viewer never related to themselves', async () => {
    const { calls, service } = recording();
    await service.engagement({ viewerId: 1, trackIds: [4, 4, 5], playlistIds: [2, 2], userIds: [1, 2, 2, 3] });
    expect(calls).toEqual([['engagement', 1, [4, 5], [2], [2, 3]]]);
  });

  it('answers an empty page without a query', async () => {
    const { calls, service } = recording();
    expect(JSON.parse(await service.engagement({ viewerId: 1, trackIds: [], playlistIds: [], userIds: [1] }))).toEqual({
      tracks: [],
      playlists: [],
      users: [],
    });
    expect(JSON.parse(await service.relationships({ viewerId: 1, userIds: [] }))).toEqual({ items: [] });
    expect(calls).toEqual([]);
  });
});
