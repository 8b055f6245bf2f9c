import { describe, expect, it } from 'vitest';
import type { Track } from '@msp/contracts';
import type { CatalogClient } from '@msp/runtime';
import { CatalogUnavailableError } from '@msp/runtime';
import { admin, ann, summaryRow } from '../../../test/unit/fakes.js';
import type { UserRow, UsersStore } from '../users/users.repository.js';
import type { Viewer } from '../users/viewer.js';
import type { ActivityStore } from './activity.repository.js';
import { ActivityService } from './activity.service.js';
import { toTrack, type TrackListRow } from './track.mapper.js';

const at = new Date('2025-03-01T10:00:00Z');
const reposted = new Date('2025-03-02T10:00:00Z');

function row(trackId: number): TrackListRow {
  return {
    trackId,
    title: `Track ${trackId}`,
    trackSlug: `track-${trackId}`,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 60,
    coverUrl: null,
    genre: 'ambient',
    publishedAt: at,
    createdAt: at,
    likeCount: 4,
    repostCount: 1,
    commentCount: 0,
    isLiked: true,
    isReposted: false,
    artistUserId: 3,
    artistUsername: 'cat',
    artistDisplayName: 'Cat',
    artistAvatarUrl: null,
    artistTier: 'FREE',
    artistFollowerCount: 1,
    artistTrackCount: 2,
    artistIsFollowing: false,
    repostedAt: reposted,
  };
}

const user = (userId: number, overrides: Partial<UserRow> = {}): UserRow => ({
  userId,
  username: `u${userId}`,
  isPrivate: false,
  blockedByViewer: false,
  hasBlockedViewer: false,
  isBanned: false,
  ...overrides,
});

type Catalog = Pick<CatalogClient, 'tracks'>;
const catalogRendering = (ids: number[]): Catalog => ({
  tracks: async () => new Map(ids.map((id): [number, Track] => [id, { ...toTrack(row(id), 0), description: 'from catalog', playCount: 50 }])),
});
const catalogDown: Catalog = {
  tracks: async () => {
    throw new CatalogUnavailableError();
  },
};

function world(options: { owner?: UserRow | null; catalog?: Catalog } = {}) {
  const finds: number[] = [];
  const reads: Array<{ what: string; userId: number; viewer: Viewer }> = [];
  const users: UsersStore = {
    find: async (_ref, viewerId) => {
      finds.push(viewerId);
      return options.owner === undefined ? user(2) : options.owner;
    },
    summaries: async (ids) => ids.map((id) => summaryRow(id, true)),
  };
  const repo: ActivityStore = {
    tracks: async (source, userId, viewer) => {
      reads.push({ what: source, userId, viewer });
      return { rows: [row(5), row(6)], total: 2 };
    },
    likedPlaylists: async (userId, viewer) => {
      reads.push({ what: 'playlists', userId, viewer });
      return { rows: [], total: 0 };
    },
    repostHistory: async (userId, viewer) => {
      reads.push({ what: 'history', userId, viewer });
      return { rows: [{ type: 'TRACK', id: 5, title: 't', slug: 't', coverUrl: null, repostedAt: reposted }], total: 1 };
    },
  } as ActivityStore;
  const service = new ActivityService(repo, users, options.catalog ?? catalogRendering([5, 6]));
  return { service, finds, reads };
}

describe('USR-20 / ENG-20 liked tracks', () => {
  it("reads the caller's own list ('me') without a user lookup", async () => {
    const w = world({ owner: null });
    await expect(w.service.likedTracks('me', ann, 0, 20)).resolves.toMatchObject({ totalElements: 2 });
    expect(w.finds).toEqual([]);
    expect(w.reads).toEqual([{ what: 'track_likes', userId: 1, viewer: { id: 1, isAdmin: false } }]);
  });

  it("R8: refuses a private user's likes to others with PROFILE_PRIVATE, not to admins", async () => {
    await expect(world({ owner: user(2, { isPrivate: true }) }).service.likedTracks({ id: 2 }, ann, 0, 20)).rejects.toMatchObject({
      code: 'PROFILE_PRIVATE',
    });
    await expect(world({ owner: user(2, { isPrivate: true }) }).service.likedTracks({ id: 2 }, admin, 0, 20)).resolves.toMatchObject({ totalElements: 2 });
  });

  it('R7 / R14: a user who blocked the viewer or is banned is USER_NOT_FOUND', async () => {
    await expect(world({ owner: user(2, { hasBlockedViewer: true }) }).service.likedTracks({ id: 2 }, ann, 0, 20)).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await expect(world({ owner: user(2, { isBanned: true }) }).service.likedTracks({ id: 2 }, null, 0, 20)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it("drops the tracks catalog leaves out (not visible to the caller) and keeps social's flags and counts", async () => {
    const page = await world({ catalog: catalogRendering([6]) }).service.likedTracks('me', ann, 0, 20);
    expect(page.content.map((t) => [t.id, t.description, t.playCount, t.likeCount, t.isLiked])).toEqual([[6, 'from catalog', 50, 4, true]]);
    expect(page.totalElements).toBe(2);
  });

  it("renders from social's copy alone when catalog does not answer", async () => {
    const page = await world({ catalog: catalogDown }).service.likedTracks('me', ann, 0, 20);
    expect(page.content.map((t) => [t.id, t.playCount])).toEqual([
      [5, 0],
      [6, 0],
    ]);
  });
});

describe('USR-22 / ENG-18 reposted tracks', () => {
  it('adds repostedBy (the listed user) and repostedAt to each track', async () => {
    const page = await world().service.repostedTracks({ username: 'u2' }, ann, 0, 20);
    expect(page.content[0]).toMatchObject({ repostedBy: { id: 2, isFollowing: true }, repostedAt: reposted.toISOString() });
  });
});

describe('USR-21 liked playlists and ENG-19 repost history', () => {
  it('apply R8 to private users', async () => {
    const w = world({ owner: user(2, { isPrivate: true }) });
    await expect(w.service.likedPlaylists({ id: 2 }, ann, 0, 20)).rejects.toMatchObject({ code: 'PROFILE_PRIVATE' });
    await expect(w.service.repostHistory({ id: 2 }, ann, 0, 20)).rejects.toMatchObject({ code: 'PROFILE_PRIVATE' });
    expect(w.reads).toEqual([]);
  });

  it('renders the repost history with ISO dates', async () => {
    const page = await world().service.repostHistory({ id: 2 }, ann, 0, 20);
    expect(page.content).toEqual([{ type: 'TRACK', id: 5, title: 't', slug: 't', coverUrl: null, repostedAt: reposted.toISOString() }]);
  });
});
