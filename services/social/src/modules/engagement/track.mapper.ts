import { toUserSummary, type Playlist, type Track, type UserSummarySource } from '@msp/contracts';

/** A track of social's projection with its artist and the viewer's flags, as one list query returns it. */
export interface TrackListRow {
  trackId: number;
  title: string;
  trackSlug: string;
  state: string;
  isPrivate: boolean;
  access: string;
  durationSeconds: number | null;
  coverUrl: string | null;
  genre: string;
  publishedAt: Date | null;
  createdAt: Date;
  likeCount: number;
  repostCount: number;
  commentCount: number;
  isLiked: boolean;
  isReposted: boolean;
  artistUserId: number;
  artistUsername: string;
  artistDisplayName: string;
  artistAvatarUrl: string | null;
  artistTier: string;
  artistFollowerCount: number;
  artistTrackCount: number;
  artistIsFollowing: boolean;
  /** Set when the list is of reposts. */
  repostedAt?: Date;
}

export function artistOf(row: TrackListRow): UserSummarySource {
  return {
    userId: row.artistUserId,
    username: row.artistUsername,
    displayName: row.artistDisplayName,
    avatarUrl: row.artistAvatarUrl,
    tier: row.artistTier,
    followerCount: row.artistFollowerCount,
    trackCount: row.artistTrackCount,
  };
}

const STATES = ['UPLOADING', 'PROCESSING', 'FINISHED', 'FAILED'] as const;
const ACCESS = ['PLAYABLE', 'PREVIEW', 'BLOCKED'] as const;

/**
 * Track (full) from social's projection: the source of the fields social owns (flags, engagement
 * counts, artist) and the whole record when catalog's batch read does not answer. Catalog's track
 * events do not carry description, tags, release date, play counts or media URLs (signed per
 * request, R4), so this fallback renders those as null/empty/0 and releaseDate as the upload day
 * (see README). Engagement counts are social's own and exact.
 */
export function toTrack(row: TrackListRow, viewerId: number): Track {
  const created = row.createdAt.toISOString();
  return {
    id: row.trackId,
    title: row.title,
    trackSlug: row.trackSlug,
    artist: toUserSummary(artistOf(row), row.artistUserId !== viewerId && row.artistIsFollowing),
    description: null,
    genre: row.genre,
    tags: [],
    releaseDate: created.slice(0, 10),
    uploadDate: created,
    createdAt: created,
    publishedAt: row.publishedAt ? row.publishedAt.toISOString() : null,
    state: STATES.find((s) => s === row.state) ?? 'PROCESSING',
    isPrivate: row.isPrivate,
    access: ACCESS.find((a) => a === row.access) ?? 'PLAYABLE',
    trackUrl: null,
    trackPreviewUrl: null,
    hlsUrl: null,
    coverUrl: row.coverUrl,
    waveformUrl: null,
    trackDurationSeconds: row.durationSeconds,
    playCount: 0,
    completedPlayCount: 0,
    likeCount: row.likeCount,
    repostCount: row.repostCount,
    commentCount: row.commentCount,
    isLiked: row.isLiked,
    isReposted: row.isReposted,
    secretToken: null,
  };
}

export interface PlaylistListRow {
  playlistId: number;
  title: string;
  playlistSlug: string;
  isPrivate: boolean;
  coverArtUrl: string | null;
  createdAt: Date;
  likeCount: number;
  repostCount: number;
  isLiked: boolean;
  isReposted: boolean;
  ownerUserId: number;
  ownerUsername: string;
  ownerDisplayName: string;
  ownerAvatarUrl: string | null;
  ownerTier: string;
  ownerFollowerCount: number;
  ownerTrackCount: number;
  ownerIsFollowing: boolean;
}

/**
 * Playlist (list form) from social's projection: catalog's playlist events carry neither the
 * tracks nor type, description, genre or tags, so those are rendered empty until catalog offers
 * a batch read (see README).
 */
export function toPlaylist(row: PlaylistListRow, viewerId: number): Playlist {
  const owner: UserSummarySource = {
    userId: row.ownerUserId,
    username: row.ownerUsername,
    displayName: row.ownerDisplayName,
    avatarUrl: row.ownerAvatarUrl,
    tier: row.ownerTier,
    followerCount: row.ownerFollowerCount,
    trackCount: row.ownerTrackCount,
  };
  const created = row.createdAt.toISOString();
  return {
    id: row.playlistId,
    title: row.title,
    type: 'PLAYLIST',
    description: null,
    isPrivate: row.isPrivate,
    coverArtUrl: row.coverArtUrl,
    playlistSlug: row.playlistSlug,
    genres: [],
    genre: null,
    tags: [],
    totalDurationSeconds: 0,
    trackCount: 0,
    secretToken: null,
    owner: toUserSummary(owner, row.ownerUserId !== viewerId && row.ownerIsFollowing),
    isLiked: row.isLiked,
    isReposted: row.isReposted,
    likeCount: row.likeCount,
    repostCount: row.repostCount,
    createdAt: created,
    updatedAt: created,
    trackSummaryDto: [],
    tracks: [],
    firstTrackWaveformUrl: null,
    paginatedTrackResponse: null,
  };
}

/**
 * A page's tracks as the caller sees them: catalog's rendering (`rendered`; null when catalog did not
 * answer) with the fields social owns put back from social's own rows — the viewer's isLiked and
 * isReposted, the like/repost/comment counts and the artist summary with isFollowing — whatever
 * catalog said about them. Catalog's visibility decision is never overridden: a track it left out
 * is dropped. Without catalog's answer, social's copy alone renders the page (its rows passed
 * social's own visibility SQL, R2/R7, before paging).
 */
export function mergeRendered<Row extends TrackListRow>(
  rows: readonly Row[],
  rendered: ReadonlyMap<number, Track> | null,
  viewerId: number,
): Array<{ row: Row; track: Track }> {
  return rows.flatMap((row) => {
    const own = toTrack(row, viewerId);
    if (!rendered) return [{ row, track: own }];
    const full = rendered.get(row.trackId);
    if (!full) return [];
    const track: Track = {
      ...full,
      artist: own.artist,
      likeCount: own.likeCount,
      repostCount: own.repostCount,
      commentCount: own.commentCount,
      isLiked: own.isLiked,
      isReposted: own.isReposted,
    };
    return [{ row, track }];
  });
}
