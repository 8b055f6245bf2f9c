import type { Caller } from '@msp/http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MediaSigner } from '../../src/modules/media/media-signer.js';
import type { TrackReadsRepository } from '../../src/modules/tracks/track-reads.repository.js';
import { TrackPresenter, type PresentableRow } from '../../src/modules/tracks/track-presenter.js';
import type { ViewerFlagsRepository } from '../../src/modules/tracks/viewer-flags.repository.js';

const ARTIST = 7;
const VIEWER = 9;

/** A FINISHED, public, playable track read with its artist (as TrackReadsRepository's list reads give it). */
function row(id: number, overrides: Partial<Record<string, unknown>> = {}): PresentableRow {
  return {
    id,
    artistId: ARTIST,
    title: `Track ${id}`,
    trackSlug: `track-${id}`,
    description: null,
    genre: 'Ambient',
    tags: ['calm'],
    releaseDate: new Date('2026-01-02T00:00:00Z'),
    createdAt: new Date('2026-01-02T03:04:05Z'),
    publishedAt: new Date('2026-01-02T03:04:05Z'),
    deletedAt: null,
    state: 'FINISHED',
    isPrivate: false,
    heldBack: false,
    access: 'PLAYABLE',
    secretToken: 'secret-token',
    durationSeconds: 61,
    playCount: 10,
    completedPlayCount: 4,
    likeCount: 3,
    repostCount: 1,
    commentCount: 0,
    coverKey: null,
    progressiveKey: `tracks/${id}/full.m4a`,
    hlsPlaylistKey: `tracks/${id}/index.m3u8`,
    previewKey: `tracks/${id}/preview.m4a`,
    waveformKey: null,
    loudness: null,
    artist: { userId: ARTIST, username: 'artist', displayName: 'The Artist', avatarUrl: null, tier: 'FREE', followerCount: 2, trackCount: 1 },
    ...overrides,
  } as unknown as PresentableRow;
}

function presenter(): TrackPresenter {
  const signer = new MediaSigner('a-test-signing-secret-of-enough-length', 600, 'http://api.test');
  // The rows come with their artists and flags: neither repository is asked.
  const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('not expected')) });
  return new TrackPresenter(unused as TrackReadsRepository, signer, unused as ViewerFlagsRepository, 'http://api.test');
}

const viewer: Caller = { userId: VIEWER, username: 'viewer', sessionId: 's1', role: 'LISTENER', tier: 'FREE' };
const owner: Caller = { userId: ARTIST, username: 'artist', sessionId: 's2', role: 'ARTIST', tier: 'FREE' };
const flags = (liked: number[], following: number[] = []) => ({ flags: { liked, reposted: [], following } });

describe('TrackPresenter: records kept per row object and variant', () => {
  afterEach(() => vi.useRealTimers());

  it('gives the same record for the same row object, caller kind and flags, and a new one for a new row version', async () => {
    const p = presenter();
    const r = row(1);
    const [a] = await p.present([r], viewer, flags([]));
    const [b] = await p.present([r], { ...viewer, userId: VIEWER + 1 }, flags([]));
    expect(b).toBe(a);
    // A new row version is a new object (TrackRowCache): rendered afresh, with its new values.
    const [c] = await p.present([row(1, { playCount: 11 })], viewer, flags([]));
    expect(c).not.toBe(a);
    expect(c!.playCount).toBe(11);
  });

  it('keeps the viewer flags, the grant and the secret token apart', async () => {
    const p = presenter();
    const r = row(2);
    const [plain] = await p.present([r], viewer, flags([]));
    const [liked] = await p.present([r], viewer, flags([2], [ARTIST]));
    const [own] = await p.present([r], owner, flags([]));
    expect(plain).toMatchObject({ isLiked: false, secretToken: null, artist: { isFollowing: false } });
    expect(liked).toMatchObject({ isLiked: true, secretToken: null, artist: { isFollowing: true } });
    expect(own).toMatchObject({ isLiked: false, secretToken: 'secret-token' });
    expect(own!.trackUrl).toContain('g=o');
    expect(plain!.trackUrl).toContain('g=v');
    // The first variant is still kept beside the others.
    const [again] = await p.present([r], viewer, flags([]));
    expect(again).toBe(plain);
  });

  it('signs the media URLs again in a new expiry step', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-29T12:00:00Z') });
    const p = presenter();
    const r = row(3);
    const [first] = await p.present([r], viewer, flags([]));
    vi.setSystemTime(new Date('2026-11-29T12:05:00Z'));
    const [later] = await p.present([r], viewer, flags([]));
    expect(later).not.toBe(first);
    expect(later!.trackUrl).not.toBe(first!.trackUrl);
  });

  it('hands out records nobody can change (frozen where tests run), so a page copies before it adds its own fields', async () => {
    const p = presenter();
    const [track] = await p.present([row(4)], viewer, flags([]));
    expect(() => ((track as { isLiked: boolean }).isLiked = true)).toThrow(TypeError);
    expect(() => ((track!.artist as { isFollowing: boolean }).isFollowing = true)).toThrow(TypeError);
    expect({ ...track, trendingRank: 1 }.trendingRank).toBe(1);
  });

  it('renders a row read without its artist summary each time (its artist comes from elsewhere)', async () => {
    const p = presenter();
    const r = row(5, { artist: null });
    const [a] = await p.present([r], owner, flags([]));
    const [b] = await p.present([r], owner, flags([]));
    expect(a).not.toBe(b);
    expect(a!.artist.id).toBe(ARTIST);
  });
});
