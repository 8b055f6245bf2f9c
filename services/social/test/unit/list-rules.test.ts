import { describe, expect, it } from 'vitest';
import { toTrack, type TrackListRow } from '../../src/modules/engagement/track.mapper.js';
import { viewerOf } from '../../src/modules/users/viewer.js';

describe('ENG-* list rules (unit, no database)', () => {
  it('an anonymous viewer is id 0, which no user has; only ADMIN is an admin', () => {
    expect(viewerOf(null)).toEqual({ id: 0, isAdmin: false });
    expect(viewerOf({ userId: 7, role: 'ADMIN' } as never)).toEqual({ id: 7, isAdmin: true });
    expect(viewerOf({ userId: 8, role: 'ARTIST' } as never).isAdmin).toBe(false);
  });

  it("R4: the fallback track record from social's projection carries no media URL and no secret token", () => {
    const row = {
      trackId: 5,
      title: 'First light',
      trackSlug: 'first-light',
      artistUserId: 9,
      artistUsername: 'ann',
      artistDisplayName: 'Ann',
      artistAvatarUrl: null,
      artistTier: 'FREE',
      artistFollowerCount: 0,
      artistTrackCount: 1,
      artistIsFollowing: true,
      genre: null,
      createdAt: new Date('2026-01-02T03:04:05.000Z'),
      publishedAt: null,
      state: 'SOMETHING_NEW',
      isPrivate: false,
      access: 'PREVIEW',
      coverUrl: null,
      durationSeconds: 120,
      likeCount: 3,
      repostCount: 1,
      commentCount: 0,
      isLiked: true,
      isReposted: false,
    } as unknown as TrackListRow;
    const track = toTrack(row, 9);
    expect(track).toMatchObject({ trackUrl: null, trackPreviewUrl: null, hlsUrl: null, secretToken: null, access: 'PREVIEW', state: 'PROCESSING' });
    expect(track.releaseDate).toBe('2026-01-02');
  });
});
