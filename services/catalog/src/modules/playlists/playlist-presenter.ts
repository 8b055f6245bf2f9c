import { toPage, toUserSummary, type Page, type Playlist, type TrackSummary, type UserSummary } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { NO_PLAYLIST_FLAGS, type PlaylistViewerFlags, type ViewerFlagsRepository } from '../tracks/viewer-flags.repository.js';
import { callerSummary, type TrackPresenter } from '../tracks/track-presenter.js';
import { toTrack, toTrackSummary, type TrackRow } from '../tracks/track.mapper.js';
import type { PlaylistRow, PlaylistsRepository, TrackScope } from './playlists.repository.js';

/** Tracks shown inside list items (Playlist record: the first 5 in lists). */
export const LIST_TRACKS = 5;

const isAdmin = (caller: Caller | null) => caller?.role === 'ADMIN';

export const ownsOrAdmin = (row: { ownerId: number }, caller: Caller | null) => !!caller && (caller.userId === row.ownerId || caller.role === 'ADMIN');

function unknownUser(userId: number): UserSummary {
  const username = `user-${userId}`;
  return { id: userId, username, displayName: username, avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 };
}

/** What one playlist shows the caller: its included tracks (already in order) and totals. */
interface Contents {
  tracks: TrackRow[];
  trackCount: number;
  totalDurationSeconds: number;
  trackGenres: string[];
}

/** The caller's flags on a rendered page, as sets of ids. */
interface Seen {
  following: ReadonlySet<number>;
  likedTracks: ReadonlySet<number>;
  repostedTracks: ReadonlySet<number>;
  likedPlaylists: ReadonlySet<number>;
  repostedPlaylists: ReadonlySet<number>;
}

function seen(flags: PlaylistViewerFlags): Seen {
  return {
    following: new Set(flags.following),
    likedTracks: new Set(flags.liked),
    repostedTracks: new Set(flags.reposted),
    likedPlaylists: new Set(flags.likedPlaylists),
    repostedPlaylists: new Set(flags.repostedPlaylists),
  };
}

/**
 * Playlist records as one caller sees them. A page costs a constant number of queries (page, total,
 * the viewer's blocks, per-artist aggregates, first tracks, track rows, user summaries, the
 * viewer's flags) whatever the page size, and no call to another service: isFollowing, and
 * isLiked / isReposted of the playlists and their tracks, come from catalog's copies of social's
 * data (`user_follows`, `track_engagements`, `playlist_engagements`, kept by its consumers) in ONE
 * statement. R7 hiding comes from catalog's copy of the blocks; `offline` renders (other services'
 * internal reads) show no viewer's flags.
 */
export class PlaylistPresenter {
  constructor(
    private readonly repo: PlaylistsRepository,
    private readonly tracks: TrackPresenter,
    private readonly flags: Pick<ViewerFlagsRepository, 'ofPlaylists'>,
  ) {}

  coverUrl(row: { coverKey: string | null }): string | null {
    return this.tracks.assetUrl(row.coverKey);
  }

  private scope(caller: Caller | null, hiddenArtists: readonly number[] = [], tokenOwnerId: number | null = null): TrackScope {
    return { viewerId: caller?.userId ?? null, admin: isAdmin(caller), tokenOwnerId, hiddenArtists };
  }

  /** Users a block separates from the caller (R7, catalog's copy); admins see through blocks. */
  private hidden(caller: Caller | null): Promise<Set<number>> {
    if (!caller || isAdmin(caller)) return Promise.resolve(new Set());
    return this.repo.blockedUsers(caller.userId);
  }

  /** The caller's flags on a page from catalog's copies (one statement), or none (anonymous or offline). */
  private async viewerFlags(
    caller: Caller | null,
    offline: boolean,
    items: { userIds: readonly number[]; trackIds: readonly number[]; playlistIds: readonly number[] },
  ): Promise<Seen> {
    if (!caller || offline) return seen(NO_PLAYLIST_FLAGS);
    const userIds = [...new Set(items.userIds)].filter((id) => id !== caller.userId);
    return seen(await this.flags.ofPlaylists(caller.userId, items.playlistIds, [...new Set(items.trackIds)], userIds));
  }

  /** A list page (PLS-1, USR-19): first 5 tracks per item, paginatedTrackResponse null. Blocked owners' items are dropped. */
  async presentList(rows: readonly PlaylistRow[], caller: Caller | null, options: { offline?: boolean } = {}): Promise<Playlist[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const hidden = await this.hidden(caller);
    const scope = this.scope(caller, [...hidden]);
    const [aggregates, firsts] = await Promise.all([this.repo.aggregates(ids, scope), this.repo.firstTrackIds(ids, scope, LIST_TRACKS)]);
    const people = [...new Set([...rows.map((r) => r.ownerId), ...aggregates.map((a) => a.artistId)])];
    const [trackRows, summaries, flags] = await Promise.all([
      this.repo.tracksByIds(firsts.map((f) => f.trackId)),
      this.repo.userSummaries(people),
      this.viewerFlags(caller, options.offline ?? false, { userIds: people, trackIds: firsts.map((f) => f.trackId), playlistIds: ids }),
    ]);
    const trackById = new Map(trackRows.map((t) => [t.id, t]));
    const out: Playlist[] = [];
    for (const row of rows) {
      if (hidden.has(row.ownerId)) continue;
      const mine = aggregates.filter((a) => a.playlistId === row.id && !hidden.has(a.artistId));
      const genres = [...mine].sort((a, b) => a.first - b.first).map((a) => a.genre);
      const contents: Contents = {
        tracks: firsts.filter((f) => f.playlistId === row.id).flatMap((f) => trackById.get(f.trackId) ?? []),
        trackCount: mine.reduce((n, a) => n + a.n, 0),
        totalDurationSeconds: mine.reduce((n, a) => n + a.secs, 0),
        trackGenres: genres,
      };
      out.push(this.toPlaylist(row, contents, caller, { summaries, seen: flags, viaToken: false, page: null }));
    }
    return out;
  }

  /**
   * A single playlist (PLS-2, PLS-4, PLS-14, PLS-17 and the membership operations): every included
   * track plus the `page,size` slice. null when a block separates the caller from the owner (R7).
   */
  async presentOne(
    row: PlaylistRow,
    caller: Caller | null,
    options: { viaToken: boolean; page: number; size: number; offline?: boolean },
  ): Promise<Playlist | null> {
    const contents = await this.contents(row, caller, options.viaToken, options.offline ?? false);
    if (!contents) return null;
    const people = [...new Set([row.ownerId, ...contents.tracks.map((t) => t.artistId)])];
    const summaries = await this.repo.userSummaries(people);
    return this.toPlaylist(row, contents, caller, {
      summaries,
      seen: contents.seen,
      viaToken: options.viaToken,
      page: { page: options.page, size: options.size },
    });
  }

  private async contents(row: PlaylistRow, caller: Caller | null, viaToken: boolean, offline: boolean): Promise<(Contents & { seen: Seen }) | null> {
    const hidden = await this.hidden(caller);
    if (hidden.has(row.ownerId)) return null;
    const entries = await this.repo.visibleEntries(row.id, this.scope(caller, [...hidden], viaToken ? row.ownerId : null));
    const ids = entries.map((e) => e.trackId);
    // One statement for the caller's flags: isFollowing of the people, the playlist's and all its tracks' (≤ 500).
    const [flags, trackRows] = await Promise.all([
      this.viewerFlags(caller, offline, { userIds: [row.ownerId, ...entries.map((e) => e.artistId)], trackIds: ids, playlistIds: [row.id] }),
      this.repo.tracksByIds(ids),
    ]);
    const byId = new Map(trackRows.map((t) => [t.id, t]));
    const tracks = ids.flatMap((id) => byId.get(id) ?? []);
    return {
      tracks,
      trackCount: tracks.length,
      totalDurationSeconds: tracks.reduce((n, t) => n + (t.durationSeconds ?? 0), 0),
      trackGenres: tracks.map((t) => t.genre),
      seen: flags,
    };
  }

  private userSummary(
    userId: number,
    caller: Caller | null,
    summaries: ReadonlyArray<Parameters<typeof toUserSummary>[0] & { userId: number }>,
    following: ReadonlySet<number>,
  ): UserSummary {
    const found = summaries.find((s) => s.userId === userId);
    const isFollowing = following.has(userId);
    if (found) return toUserSummary(found, caller?.userId === userId ? false : isFollowing);
    return caller && caller.userId === userId ? callerSummary(caller) : unknownUser(userId);
  }

  private trackSummary(track: TrackRow, caller: Caller | null, ctx: { summaries: Parameters<PlaylistPresenter['userSummary']>[2]; seen: Seen }): TrackSummary {
    const owner = !!caller && (caller.userId === track.artistId || caller.role === 'ADMIN');
    // A private track of someone else is only here through the playlist's token (R5): token grant.
    const grant = owner ? 'o' : track.isPrivate ? 't' : 'v';
    return toTrackSummary(
      toTrack(track, {
        artist: this.userSummary(track.artistId, caller, ctx.summaries, ctx.seen.following),
        media: this.tracks.mediaUrls(track, grant),
        isLiked: ctx.seen.likedTracks.has(track.id),
        isReposted: ctx.seen.repostedTracks.has(track.id),
        showSecretToken: owner,
      }),
    );
  }

  private toPlaylist(
    row: PlaylistRow,
    contents: Contents,
    caller: Caller | null,
    ctx: {
      summaries: Parameters<PlaylistPresenter['userSummary']>[2];
      seen: Seen;
      viaToken: boolean;
      page: { page: number; size: number } | null;
    },
  ): Playlist {
    const trackCtx = { summaries: ctx.summaries, seen: ctx.seen };
    const summaries = contents.tracks.map((t) => this.trackSummary(t, caller, trackCtx));
    const genres: string[] = [];
    const seen = new Set<string>();
    for (const g of [row.genre, ...contents.trackGenres]) {
      if (!g || seen.has(g.toLowerCase())) continue;
      seen.add(g.toLowerCase());
      genres.push(g);
    }
    let paginated: Page<TrackSummary> | null = null;
    if (ctx.page) {
      const { page, size } = ctx.page;
      paginated = toPage(summaries.slice(page * size, page * size + size), summaries.length, page, size);
    }
    return {
      id: row.id,
      title: row.title,
      type: row.type,
      description: row.description,
      isPrivate: row.isPrivate,
      coverArtUrl: this.coverUrl(row),
      playlistSlug: row.playlistSlug,
      genres,
      genre: row.genre,
      tags: row.tags ?? [],
      totalDurationSeconds: contents.totalDurationSeconds,
      trackCount: contents.trackCount,
      secretToken: ownsOrAdmin(row, caller) ? row.secretToken : null,
      owner: this.userSummary(row.ownerId, caller, ctx.summaries, ctx.seen.following),
      isLiked: ctx.seen.likedPlaylists.has(row.id),
      isReposted: ctx.seen.repostedPlaylists.has(row.id),
      likeCount: row.likeCount,
      repostCount: row.repostCount,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      trackSummaryDto: summaries,
      tracks: summaries,
      firstTrackWaveformUrl: summaries[0]?.waveformUrl ?? null,
      paginatedTrackResponse: paginated,
    };
  }
}
