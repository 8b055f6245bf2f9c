import type { Caller } from '@msp/http';
import type { PlaylistRow } from '../../src/modules/playlists/playlists.repository.js';
import type { ReadTrack } from '../../src/modules/tracks/track-reads.repository.js';
import type { TrackRow } from '../../src/modules/tracks/track.mapper.js';

/** Callers of the unit tests: a listener, an artist (owner of the rows below) and an admin. */
export const ann: Caller = { userId: 1, role: 'LISTENER', tier: 'FREE', sessionId: 's1', username: 'ann' };
export const bob: Caller = { userId: 2, role: 'ARTIST', tier: 'FREE', sessionId: 's2', username: 'bob' };
export const admin: Caller = { userId: 9, role: 'ADMIN', tier: 'FREE', sessionId: 's9', username: 'root' };

export const at = new Date('2025-03-01T10:00:00Z');

/** A finished public track of bob's. */
export function trackRow(overrides: Partial<TrackRow> = {}): TrackRow {
  return {
    id: 7,
    artistId: bob.userId,
    title: 'Song',
    trackSlug: 'song',
    description: null,
    genre: 'ambient',
    tags: [],
    releaseDate: at,
    state: 'FINISHED',
    isPrivate: false,
    heldBack: false,
    access: 'PLAYABLE',
    secretToken: 'tok',
    durationSeconds: 60,
    playCount: 0,
    completedPlayCount: 0,
    likeCount: 0,
    repostCount: 0,
    commentCount: 0,
    publishedAt: at,
    createdAt: at,
    deletedAt: null,
    uploadId: '5f0c6a52-3b1e-4c8a-9d2e-7a1b2c3d4e5f',
    coverKey: null,
    progressiveKey: 'tracks/7/full.m4a',
    hlsPlaylistKey: 'tracks/7/hls/index.m3u8',
    previewKey: 'tracks/7/preview.m4a',
    waveformKey: null,
    statusStep: null,
    statusProgress: null,
    errorMessage: null,
    statusUpdatedAt: at,
    loudness: null,
    ...overrides,
  };
}

/** The same track as the reads return it: with its artist, visible and not blocked. */
export function readTrack(overrides: Partial<ReadTrack> = {}): ReadTrack {
  return {
    ...trackRow(),
    artist: null,
    artistHidden: false,
    artistBanned: false,
    blocked: false,
    ...overrides,
  };
}

/** A public playlist of bob's. */
export function playlistRow(overrides: Partial<PlaylistRow> = {}): PlaylistRow {
  return {
    id: 5,
    ownerId: bob.userId,
    title: 'Mix',
    playlistSlug: 'mix',
    description: null,
    type: 'PLAYLIST',
    isPrivate: false,
    genre: null,
    tags: [],
    secretToken: 'ptok',
    coverKey: null,
    likeCount: 0,
    repostCount: 0,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}
