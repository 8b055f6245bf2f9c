import { describe, expect, it } from 'vitest';
import type { Playlist, Track } from '@msp/contracts';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import type { ReadTrack } from '../tracks/track-reads.repository.js';
import type { ChartEntry, DiscoveryStore, SearchHit, StationPick } from './discovery.repository.js';
import { DiscoveryService, type DiscoveryServiceDeps } from './discovery.service.js';
import { StationPools } from './station-pools.js';

const unexpected = (name: string) => async () => {
  throw new Error(`${name}: no read expected`);
};

interface World {
  users?: Record<string, { userId: number; isBanned: boolean }>;
  tracks?: Record<string, { id: number; secretToken: string }>;
  playlists?: Record<string, { id: number; secretToken: string }>;
  /** [blocker, blocked] pairs (R7). */
  blocks?: Array<[number, number]>;
  /** The track or playlist read answers 404 (TRK-6 / PLS-4 rules). */
  hiddenItem?: boolean;
  genre?: StationPick[];
  /** The shared trending chart. */
  chart?: ChartEntry[];
  rows?: ReadTrack[];
  visibleUser?: boolean;
  hits?: SearchHit[];
}

function world(options: World = {}) {
  const calls: string[] = [];
  const notFound = (code: string) => Object.assign(new Error(code), { code });
  const rows = options.rows ?? [];
  const blocked = (viewerId: number, userId: number) =>
    (options.blocks ?? []).some(([a, b]) => (a === viewerId && b === userId) || (b === viewerId && a === userId));
  const repo: DiscoveryStore = {
    search: async (_terms, kinds) => {
      calls.push(`search ${kinds.join(',')}`);
      return { hits: options.hits ?? [], total: options.hits?.length ?? 0 };
    },
    playlists: unexpected('playlists'),
    userSummaries: async (ids) => {
      calls.push('users');
      return ids.map((userId) => ({
        userId,
        username: `u${userId}`,
        displayName: 'U',
        avatarUrl: null,
        tier: 'FREE',
        followerCount: 0,
        trackCount: 0,
        isFollowing: userId === 4,
      }));
    },
    trendingPage: async () => ({ rows, viewerBlocks: false }),
    trendingCount: async () => 99,
    trendingChart: async () => options.chart ?? [],
    userByName: async (name) => options.users?.[name] ?? null,
    trackBySlug: async (slug) => options.tracks?.[slug] ?? null,
    playlistBySlug: async (slug) => options.playlists?.[slug] ?? null,
    hasBlocked: async (a, b) => (options.blocks ?? []).some(([x, y]) => x === a && y === b),
    genrePicks: async () => options.genre ?? [],
    visibleUser: async () => options.visibleUser ?? true,
    artistSeeds: async () => ({ visible: options.visibleUser ?? true, genres: ['ambient'], own: [] }),
    artistPicks: async () => [],
    likeSeeds: unexpected('likeSeeds'),
    blocksOf: async (viewerId) => new Set((options.blocks ?? []).filter(([a]) => a === viewerId).map(([, b]) => b)),
  } as DiscoveryStore;
  const item = async () => {
    if (options.hiddenItem) throw notFound('NOT_FOUND');
    return {} as never;
  };
  const deps: DiscoveryServiceDeps = {
    repo,
    reads: {
      inOrderForViewer: async (ids, viewerId) => {
        calls.push('tracks');
        return {
          rows: ids.flatMap((id) => rows.filter((r) => r.id === id).map((r) => ({ ...r, blocked: blocked(viewerId, r.artistId) }))),
          flags: { liked: [], reposted: [], following: [] },
          viewerBlocks: (options.blocks ?? []).some(([a, b]) => a === viewerId || b === viewerId),
        };
      },
    },
    stations: new StationPools(),
    tracks: { get: item, byToken: item },
    playlists: { get: item, byToken: item },
    trackPresenter: {
      present: async (list) =>
        list.map(
          (r) =>
            ({
              id: r.id,
              title: r.title,
              artist: { id: r.artistId, username: 'bob', displayName: 'Bob', avatarUrl: null },
              trackUrl: r.progressiveKey ? 'https://media/full' : null,
              waveformUrl: 'https://cdn/w',
              coverUrl: null,
              durationSeconds: r.durationSeconds,
            }) as unknown as Track,
        ),
    },
    playlistPresenter: {
      presentList: async () => {
        calls.push('playlists');
        return [] as Playlist[];
      },
    },
    webBaseUrl: 'https://web.test',
  };
  return { service: new DiscoveryService(deps), calls };
}

const q = { page: 0, size: 20 };
const bobUser = { bob: { userId: bob.userId, isBanned: false } };
const bannedBob = { bob: { userId: bob.userId, isBanned: true } };

describe('DSC-4 resolve a link', () => {
  it('resolves profile, track and playlist links of this site', async () => {
    const w = world({ users: bobUser, tracks: { song: { id: 7, secretToken: 'tok' } }, playlists: { mix: { id: 5, secretToken: 'ptok' } } });
    await expect(w.service.resolve(ann, 'https://web.test/bob')).resolves.toEqual({ type: 'USER', id: 2, resourceType: 'USER', resourceId: 2 });
    await expect(w.service.resolve(ann, 'https://web.test/bob/song')).resolves.toEqual({ type: 'TRACK', id: 7, resourceType: 'TRACK', resourceId: 7 });
    await expect(w.service.resolve(ann, '/bob/sets/mix')).resolves.toEqual({ type: 'PLAYLIST', id: 5, resourceType: 'PLAYLIST', resourceId: 5 });
  });

  it('refuses a link of another site with VALIDATION_FAILED on url', async () => {
    await expect(world().service.resolve(ann, 'https://elsewhere.test/bob')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ field: 'url' })],
    });
  });

  it('R14 / R7: a banned user, or one who blocked the caller, is USER_NOT_FOUND except for admins', async () => {
    await expect(world({ users: bannedBob }).service.resolve(ann, '/bob')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(world({ users: bannedBob }).service.resolve(admin, '/bob')).resolves.toMatchObject({ id: 2 });
    await expect(world({ users: bobUser, blocks: [[2, 1]] }).service.resolve(ann, '/bob')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(world({ users: bobUser, blocks: [[2, 1]] }).service.resolve(bob, '/bob')).resolves.toMatchObject({ id: 2 });
    await expect(world().service.resolve(ann, '/nobody')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it("R5: a track link's token must be the track's, and a banned artist's track is TRACK_NOT_FOUND", async () => {
    const tracks = { song: { id: 7, secretToken: 'track-token' } };
    await expect(world({ users: bobUser, tracks }).service.resolve(ann, '/bob/song?token=track-token')).resolves.toMatchObject({ id: 7 });
    await expect(world({ users: bobUser, tracks }).service.resolve(ann, '/bob/song?token=other-token')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world({ users: bannedBob, tracks }).service.resolve(ann, '/bob/song')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world({ users: bobUser }).service.resolve(ann, '/bob/other')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });

  it('applies the track and playlist read rules (a private item resolves for nobody else)', async () => {
    const w = world({ users: bobUser, tracks: { song: { id: 7, secretToken: 'tok' } }, playlists: { mix: { id: 5, secretToken: 'p' } }, hiddenItem: true });
    await expect(w.service.resolve(ann, '/bob/song')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(w.service.resolve(ann, '/bob/sets/mix')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      world({ users: bobUser, playlists: { mix: { id: 5, secretToken: 'p' } } }).service.resolve(ann, '/bob/sets/mix?token=other-token'),
    ).rejects.toMatchObject({
      code: 'PLAYLIST_NOT_FOUND',
    });
  });
});

describe('DSC-3 search', () => {
  it('answers an empty page without a query when the text has no word, or when a genre filter meets type USER', async () => {
    const w = world();
    await expect(w.service.search(ann, { ...q, q: '  !! ', type: 'ALL' })).resolves.toMatchObject({ content: [], totalElements: 0 });
    await expect(w.service.search(ann, { ...q, q: 'love', type: 'USER', genre: 'rock' })).resolves.toMatchObject({ content: [], totalElements: 0 });
    expect(w.calls).toEqual([]);
  });

  it('searches tracks and playlists only when a genre is given, every kind otherwise', async () => {
    const w = world();
    await w.service.search(ann, { ...q, q: 'love', type: 'ALL', genre: 'Rock' });
    await w.service.search(ann, { ...q, q: 'love', type: 'ALL' });
    expect(w.calls).toEqual(['search TRACK,PLAYLIST', 'search TRACK,USER,PLAYLIST']);
  });

  it('renders the hits in rank order from catalog alone (flags and isFollowing from its copies), dropping hits that no longer render', async () => {
    const w = world({
      hits: [
        { type: 'USER', id: 4 },
        { type: 'TRACK', id: 7 },
        { type: 'TRACK', id: 8 },
      ],
      rows: [readTrack()],
    });
    const page = await w.service.search(ann, { ...q, q: 'song', type: 'ALL' });
    expect(page.content.map((r) => [r.type, r.id])).toEqual([
      ['USER', 4],
      ['TRACK', 7],
    ]);
    const user = page.content[0]!;
    expect(user.user).toMatchObject({ id: 4, isFollowing: true });
    expect(w.calls).toEqual(['search TRACK,USER,PLAYLIST', 'tracks', 'users']);
  });
});

describe('DSC-2 trending', () => {
  const chart = Array.from({ length: 99 }, (_, i) => ({ id: i + 5, artistId: i === 1 ? 3 : 2 }));

  it('numbers the page from its offset', async () => {
    const page = await world({ rows: [readTrack({ id: 7 }), readTrack({ id: 8 })], chart }).service.trending(null, { page: 1, size: 2 });
    expect(page.content.map((t) => [t.id, t.trendingRank])).toEqual([
      [7, 3],
      [8, 4],
    ]);
    expect(page.totalElements).toBe(99);
  });

  it('R7: leaves out the artists a block separates from the caller before paging; the total is the caller’s', async () => {
    const page = await world({ rows: [readTrack({ id: 8 }), readTrack({ id: 9 })], chart, blocks: [[1, 3]] }).service.trending(ann, { page: 1, size: 2 });
    expect(page.content.map((t) => [t.id, t.trendingRank])).toEqual([
      [8, 3],
      [9, 4],
    ]);
    expect(page.totalElements).toBe(98);
  });
});

describe('DSC-5 / DSC-6 stations', () => {
  const picks: StationPick[] = [
    { id: 1, artistId: 2, rank: 'a' },
    { id: 2, artistId: 3, rank: 'b' },
    { id: 3, artistId: 2, rank: 'c' },
  ];
  const onAir = (overrides: Partial<ReadTrack>) => readTrack({ waveformKey: 'w.json', ...overrides });
  const rows = [onAir({ id: 1 }), onAir({ id: 2, artistId: 3 }), onAir({ id: 3, isPrivate: true })];

  it('R7: leaves out the artists a block separates from the caller before paging; the total is the caller’s', async () => {
    const page = await world({ genre: picks, rows, blocks: [[1, 3]] }).service.genreStation(ann, 'Ambient', q);
    expect(page.totalElements).toBe(2);
    expect(page.content.map((t) => t.id)).toEqual([1]);
  });

  it('drops tracks no longer on air (private now, no stream)', async () => {
    const page = await world({ genre: picks, rows: [onAir({ id: 1, progressiveKey: null }), ...rows.slice(1)] }).service.genreStation(null, 'ambient', q);
    expect(page.content.map((t) => t.id)).toEqual([2]);
  });

  it('answers USER_NOT_FOUND for an artist station of a user the caller may not see, not for admins', async () => {
    await expect(world({ visibleUser: false }).service.artistStation(ann, 2, q)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(world({ visibleUser: false, genre: picks, rows }).service.artistStation(admin, 2, q)).resolves.toMatchObject({ totalElements: 3 });
  });
});
