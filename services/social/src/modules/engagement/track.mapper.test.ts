import { describe, expect, it } from 'vitest';
import type { Track } from '@msp/contracts';
import { mergeRendered, toTrack, type TrackListRow } from './track.mapper.js';

function row(trackId: number, overrides: Partial<TrackListRow> = {}): TrackListRow {
  return {
    trackId,
    title: `Track ${trackId}`,
    trackSlug: `track-${trackId}`,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 120,
    coverUrl: null,
    genre: 'ambient',
    publishedAt: new Date('2025-01-01T00:00:00Z'),
    createdAt: new Date('2025-01-01T00:00:00Z'),
    likeCount: 5,
    repostCount: 2,
    commentCount: 1,
    isLiked: true,
    isReposted: false,
    artistUserId: 3,
    artistUsername: 'cat',
    artistDisplayName: 'Cat',
    artistAvatarUrl: null,
    artistTier: 'FREE',
    artistFollowerCount: 10,
    artistTrackCount: 4,
    artistIsFollowing: true,
    ...overrides,
  };
}

/** What catalog answers: its own fields, and no caller-relative flags (false). */
function fromCatalog(trackId: number): Track {
  return {
    ...toTrack(row(trackId), 0),
    description: 'from catalog',
    playCount: 77,
    isLiked: false,
    isReposted: false,
    likeCount: 0,
    repostCount: 0,
    commentCount: 0,
    trackUrl: 'https://signed',
  };
}

describe('tracks rendered by catalog, composed by social', () => {
  it("keeps catalog's fields and puts back what social owns: flags, counts, the artist with isFollowing", () => {
    const [merged] = mergeRendered([row(1)], new Map([[1, fromCatalog(1)]]), 1);
    expect(merged!.track).toMatchObject({
      description: 'from catalog',
      playCount: 77,
      trackUrl: 'https://signed',
      isLiked: true,
      isReposted: false,
      likeCount: 5,
      repostCount: 2,
      commentCount: 1,
    });
    expect(merged!.track.artist).toMatchObject({ id: 3, isFollowing: true, followerCount: 10 });
  });

  it('never shows a track catalog left out (its visibility decision stands), keeping the page order', () => {
    const merged = mergeRendered(
      [row(1), row(2), row(3)],
      new Map([
        [3, fromCatalog(3)],
        [1, fromCatalog(1)],
      ]),
      1,
    );
    expect(merged.map(({ track }) => track.id)).toEqual([1, 3]);
  });

  it("renders from social's copy when catalog did not answer", () => {
    const merged = mergeRendered([row(1), row(2)], null, 1);
    expect(merged.map(({ track }) => [track.id, track.description, track.trackUrl, track.isLiked])).toEqual([
      [1, null, null, true],
      [2, null, null, true],
    ]);
  });

  it('is never following oneself', () => {
    const [merged] = mergeRendered([row(1)], null, 3);
    expect(merged!.track.artist.isFollowing).toBe(false);
  });
});
