import type { RadioTrack, Track as WireTrack, TrackLoudness, TrackSummary, UserSummary as WireUserSummary } from '@msp/contracts';
import type { TrackSnapshot } from '@msp/events';
import type { Prisma } from '../../generated/prisma/client.js';

export const trackSelect = {
  id: true,
  artistId: true,
  title: true,
  trackSlug: true,
  description: true,
  genre: true,
  tags: true,
  releaseDate: true,
  state: true,
  isPrivate: true,
  heldBack: true,
  access: true,
  secretToken: true,
  durationSeconds: true,
  playCount: true,
  completedPlayCount: true,
  likeCount: true,
  repostCount: true,
  commentCount: true,
  publishedAt: true,
  createdAt: true,
  deletedAt: true,
  uploadId: true,
  coverKey: true,
  progressiveKey: true,
  hlsPlaylistKey: true,
  previewKey: true,
  waveformKey: true,
  statusStep: true,
  statusProgress: true,
  errorMessage: true,
  statusUpdatedAt: true,
  loudness: true,
} as const satisfies Prisma.TrackSelect;

export type TrackRow = Prisma.TrackGetPayload<{ select: typeof trackSelect }>;

/** The media URLs of a track as one caller may see them (R3, R4). */
export interface TrackMediaUrls {
  trackUrl: string | null;
  trackPreviewUrl: string | null;
  hlsUrl: string | null;
  coverUrl: string | null;
  waveformUrl: string | null;
}

/** Unfinished tracks and callers without access (R3). */
export const NO_MEDIA_URLS: TrackMediaUrls = Object.freeze({
  trackUrl: null,
  trackPreviewUrl: null,
  hlsUrl: null,
  coverUrl: null,
  waveformUrl: null,
});

/** What the caller sees of one track beyond its own columns (decided by the service). */
export interface TrackView {
  artist: WireUserSummary;
  media: TrackMediaUrls;
  isLiked: boolean;
  isReposted: boolean;
  /** Owner or admin (R5). */
  showSecretToken: boolean;
  /** Measured loudness with the playback gain (docs/sound.md); null until measured. */
  loudness?: TrackLoudness | null;
}

/** The Track record (docs/api.md), without the operation-specific optional fields. */
export function toTrack(row: TrackRow, view: TrackView): WireTrack {
  const createdAt = row.createdAt.toISOString();
  return {
    id: row.id,
    title: row.title,
    trackSlug: row.trackSlug,
    artist: view.artist,
    description: row.description,
    genre: row.genre,
    // Prisma maps a scalar list to a nullable column; a row written outside Prisma may hold NULL.
    tags: row.tags ?? [],
    releaseDate: row.releaseDate.toISOString().slice(0, 10),
    uploadDate: createdAt,
    createdAt,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    state: row.state,
    isPrivate: row.isPrivate,
    access: row.access,
    trackUrl: view.media.trackUrl,
    trackPreviewUrl: view.media.trackPreviewUrl,
    hlsUrl: view.media.hlsUrl,
    coverUrl: view.media.coverUrl,
    waveformUrl: view.media.waveformUrl,
    trackDurationSeconds: row.durationSeconds,
    playCount: row.playCount,
    completedPlayCount: row.completedPlayCount,
    likeCount: row.likeCount,
    repostCount: row.repostCount,
    commentCount: row.commentCount,
    isLiked: view.isLiked,
    isReposted: view.isReposted,
    secretToken: view.showSecretToken ? row.secretToken : null,
    loudness: view.loudness ?? null,
  };
}

/** The TrackSummary record (playlists, stations). */
export function toTrackSummary(track: WireTrack): TrackSummary {
  return {
    id: track.id,
    title: track.title,
    trackSlug: track.trackSlug,
    coverUrl: track.coverUrl,
    trackUrl: track.trackUrl,
    trackPreviewUrl: track.trackPreviewUrl,
    hlsUrl: track.hlsUrl,
    waveformUrl: track.waveformUrl,
    trackDurationSeconds: track.trackDurationSeconds,
    artist: track.artist,
    playCount: track.playCount,
    likeCount: track.likeCount,
    repostCount: track.repostCount,
    commentCount: track.commentCount,
    isLiked: track.isLiked,
    isReposted: track.isReposted,
    isPrivate: track.isPrivate,
    secretToken: track.secretToken,
    access: track.access,
  };
}

/** The RadioTrack record (stations hold FINISHED PLAYABLE tracks only). */
export function toRadioTrack(track: WireTrack): RadioTrack {
  return {
    id: track.id,
    title: track.title,
    artist: {
      id: track.artist.id,
      username: track.artist.username,
      displayName: track.artist.displayName,
      avatarUrl: track.artist.avatarUrl,
    },
    trackUrl: track.trackUrl ?? '',
    coverUrl: track.coverUrl,
    waveformUrl: track.waveformUrl ?? '',
    genre: track.genre,
    tags: track.tags,
    state: 'FINISHED',
    releaseDate: track.releaseDate,
    playCount: track.playCount,
    likeCount: track.likeCount,
    repostCount: track.repostCount,
    createdAt: track.createdAt,
    type: 'TRACK',
    track: toTrackSummary(track),
  };
}

/** TrackSnapshot of the catalog events (social, messaging keep it). */
export function toSnapshot(row: TrackRow & { artistId: number }, coverUrl: string | null): TrackSnapshot {
  return {
    trackId: row.id,
    artistId: row.artistId,
    title: row.title,
    trackSlug: row.trackSlug,
    state: row.state,
    isPrivate: row.isPrivate,
    access: row.access,
    durationSeconds: row.durationSeconds,
    coverUrl,
    genre: row.genre,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    heldBack: row.heldBack,
  };
}
