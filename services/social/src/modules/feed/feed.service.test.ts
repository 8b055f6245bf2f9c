import { describe, expect, it } from 'vitest';
import type { Caller } from '@msp/http';
import { CatalogUnavailableError, type CatalogClient } from '@msp/runtime';
import type { UsersRepository } from '../users/users.repository.js';
import type { FeedRepository, FeedRow } from './feed.repository.js';
import { FeedService } from './feed.service.js';

const ann: Caller = { userId: 1, role: 'LISTENER', tier: 'FREE', sessionId: 's', username: 'ann' };
const at = new Date('2025-03-01T10:00:00Z');
const summary = (userId: number) => ({
  userId,
  username: `u${userId}`,
  displayName: `U${userId}`,
  avatarUrl: null,
  tier: 'FREE',
  followerCount: 0,
  trackCount: 0,
  isFollowing: true,
});
const trackRow = (trackId: number) => ({
  trackId,
  title: 't',
  trackSlug: 't',
  state: 'FINISHED',
  isPrivate: false,
  access: 'PLAYABLE',
  durationSeconds: 1,
  coverUrl: null,
  genre: 'g',
  publishedAt: at,
  createdAt: at,
  likeCount: 0,
  repostCount: 0,
  commentCount: 0,
  isLiked: false,
  isReposted: false,
  artistUserId: 3,
  artistUsername: 'cat',
  artistDisplayName: 'Cat',
  artistAvatarUrl: null,
  artistTier: 'FREE',
  artistFollowerCount: 0,
  artistTrackCount: 0,
  artistIsFollowing: true,
});

function feedWith(rows: FeedRow[], ownTrackIds: number[], actors: number[]): FeedService {
  const repo = {
    page: async () => ({ rows, total: rows.length }),
    tracks: async (ids: number[]) => ids.filter((id) => ownTrackIds.includes(id)).map(trackRow),
    playlists: async () => [],
  } as unknown as FeedRepository;
  const users = { summaries: async () => actors.map(summary) } as unknown as UsersRepository;
  const catalog = {
    tracks: async () => {
      throw new CatalogUnavailableError();
    },
  } as unknown as CatalogClient;
  return new FeedService(repo, users, catalog, { windowDays: 90, maxItems: 200 });
}

describe('DSC-1 feed items', () => {
  it('marks who liked or reposted by the action type', async () => {
    const page = await feedWith(
      [
        { feedId: 9, type: 'TRACK_REPOSTED', resourceType: 'TRACK', resourceId: 5, actorId: 2, at },
        { feedId: 8, type: 'TRACK_LIKED', resourceType: 'TRACK', resourceId: 6, actorId: 2, at },
      ],
      [5, 6],
      [2],
    ).feed(ann, 0, 20);
    expect(page.content.map((i) => [i.id, i.repostedBy?.id ?? null, i.likedBy?.id ?? null, i.resource.repostedAt])).toEqual([
      [9, 2, null, at.toISOString()],
      [8, null, 2, null],
    ]);
  });

  it('leaves out an item whose track or actor is no longer there for the caller', async () => {
    const page = await feedWith(
      [
        { feedId: 3, type: 'TRACK_POSTED', resourceType: 'TRACK', resourceId: 5, actorId: 2, at },
        { feedId: 2, type: 'TRACK_POSTED', resourceType: 'TRACK', resourceId: 6, actorId: 2, at },
        { feedId: 1, type: 'TRACK_LIKED', resourceType: 'TRACK', resourceId: 5, actorId: 4, at },
      ],
      [5],
      [2],
    ).feed(ann, 0, 20);
    expect(page.content.map((i) => i.id)).toEqual([3]);
  });
});
