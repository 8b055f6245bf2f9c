import type { Track as WireTrack, UserSummary as WireUserSummary } from '@msp/contracts';
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

/**
 * NOTE: no media exists yet. The tracks feature (uploads and processing, R11) stores the
 * renditions, cover and waveform, and replaces this with URLs signed per access level (R3, R4).
 * Until then every track answers with these nulls.
 */
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
}

/** Track (full) of API.md §2, without the operation-specific optional fields. */
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
  };
}
