import { toPage, toUserSummary, type Page, type Playlist, type TrackSummary, type UserSummary } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { emptyViewerContext, type Engagement, type Relationship, type SocialClient, type ViewerContext } from '../../clients/social.client.js';
import { callerSummary, type TrackPresenter } from '../tracks/track-presenter.js';
import { toTrack, toTrackSummary, type TrackRow } from '../tracks/track.mapper.js';
import type { PlaylistRow, PlaylistsRepository, TrackScope } from './playlists.repository.js';

/** Tracks shown inside list items (API.md §2 Playlist: the first 5 in lists). */
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

/**
 * Playlist records as one caller sees them. A page costs a constant number of queries (page, total,
 * per-artist aggregates, first tracks, track rows, user summaries) and one batched call to each of
 * social's two internal routes (relationships for isFollowing and blocks; engagement for the
 * playlists AND their tracks together), whatever the page size.
 */
export class PlaylistPresenter {
  constructor(
    private readonly repo: PlaylistsRepository,
    private readonly tracks: TrackPresenter,
    private readonly social: SocialClient,
  ) {}

  coverUrl(row: { coverKey: string | null }): string | null {
    return this.tracks.assetUrl(row.coverKey);
  }

  private scope(caller: Caller | null, hiddenArtists: readonly number[] = [], tokenOwnerId: number | null = null): TrackScope {
    return { viewerId: caller?.userId ?? null, admin: isAdmin(caller), tokenOwnerId, hiddenArtists };
  }

  /** Users a block separates from the caller (R7); admins see through blocks. */
  private hidden(caller: Caller | null, rels: Map<number, Relationship>): Set<number> {
    if (!caller || isAdmin(caller)) return new Set();
    return new Set([...rels.values()].filter((r) => r.hasBlockedViewer || r.isBlocked).map((r) => r.userId));
  }

  /** A list page (PLS-1, USR-19): first 5 tracks per item, paginatedTrackResponse null. Blocked owners' items are dropped. */
  async presentList(rows: readonly PlaylistRow[], caller: Caller | null): Promise<Playlist[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const baseScope = this.scope(caller);
    const aggregates = await this.repo.aggregates(ids, baseScope);
    const people = [...new Set([...rows.map((r) => r.ownerId), ...aggregates.map((a) => a.artistId)])];
    // One call to social for the page: relationships of its people, flags of the playlists and of
    // the first tracks as they stand before R7 hiding (known up front, so no second round trip).
    const window = await this.repo.firstTrackIds(ids, baseScope, LIST_TRACKS);
    const social = caller
      ? await this.social.viewerContext(caller.userId, { userIds: people, trackIds: window.map((f) => f.trackId), playlistIds: ids })
      : emptyViewerContext();
    const rels = social.relationships;
    const hidden = this.hidden(caller, rels);
    const firsts = hidden.size > 0 ? await this.repo.firstTrackIds(ids, this.scope(caller, [...hidden]), LIST_TRACKS) : window;
    // Only when a block hides one of the first tracks do later tracks move into view: ask for those alone.
    const asked = new Set(window.map((f) => f.trackId));
    const late = caller ? firsts.map((f) => f.trackId).filter((id) => !asked.has(id)) : [];
    const [trackRows, summaries, lateFlags] = await Promise.all([
      this.repo.tracksByIds(firsts.map((f) => f.trackId)),
      this.repo.userSummaries(people),
      caller && late.length > 0 ? this.social.viewerContext(caller.userId, { trackIds: late }) : Promise.resolve(emptyViewerContext()),
    ]);
    const engagement = { tracks: new Map([...social.tracks, ...lateFlags.tracks]), playlists: social.playlists };
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
      out.push(this.toPlaylist(row, contents, caller, { summaries, rels, engagement, viaToken: false, page: null }));
    }
    return out;
  }

  /**
   * A single playlist (PLS-2, PLS-4, PLS-14, PLS-17 and the membership operations): every included
   * track plus the `page,size` slice. null when a block separates the caller from the owner (R7).
   */
  async presentOne(row: PlaylistRow, caller: Caller | null, options: { viaToken: boolean; page: number; size: number }): Promise<Playlist | null> {
    const contents = await this.contents(row, caller, options.viaToken);
    if (!contents) return null;
    const people = [...new Set([row.ownerId, ...contents.tracks.map((t) => t.artistId)])];
    const summaries = await this.repo.userSummaries(people);
    const engagement = { tracks: contents.social.tracks, playlists: contents.social.playlists };
    return this.toPlaylist(row, contents, caller, { summaries, rels: contents.social.relationships, engagement, viaToken: options.viaToken, page: { page: options.page, size: options.size } });
  }

  private async contents(row: PlaylistRow, caller: Caller | null, viaToken: boolean): Promise<(Contents & { social: ViewerContext }) | null> {
    const entries = await this.repo.visibleEntries(row.id, this.scope(caller, [], viaToken ? row.ownerId : null));
    // One call to social: the people's relationships and the flags of the playlist and all its tracks (≤ 500).
    const social = caller
      ? await this.social.viewerContext(caller.userId, {
          userIds: [row.ownerId, ...entries.map((e) => e.artistId)],
          trackIds: entries.map((e) => e.trackId),
          playlistIds: [row.id],
        })
      : emptyViewerContext();
    const rels = social.relationships;
    const hidden = this.hidden(caller, rels);
    if (hidden.has(row.ownerId)) return null;
    const ids = entries.filter((e) => !hidden.has(e.artistId)).map((e) => e.trackId);
    const byId = new Map((await this.repo.tracksByIds(ids)).map((t) => [t.id, t]));
    const tracks = ids.flatMap((id) => byId.get(id) ?? []);
    return {
      tracks,
      trackCount: tracks.length,
      totalDurationSeconds: tracks.reduce((n, t) => n + (t.durationSeconds ?? 0), 0),
      trackGenres: tracks.map((t) => t.genre),
      social,
    };
  }

  private userSummary(
    userId: number,
    caller: Caller | null,
    summaries: ReadonlyArray<Parameters<typeof toUserSummary>[0] & { userId: number }>,
    rels: Map<number, Relationship>,
  ): UserSummary {
    const found = summaries.find((s) => s.userId === userId);
    const isFollowing = rels.get(userId)?.isFollowing ?? false;
    if (found) return toUserSummary(found, caller?.userId === userId ? false : isFollowing);
    return caller && caller.userId === userId ? callerSummary(caller) : unknownUser(userId);
  }

  private trackSummary(
    track: TrackRow,
    caller: Caller | null,
    ctx: { summaries: Parameters<PlaylistPresenter['userSummary']>[2]; rels: Map<number, Relationship>; engagement: Map<number, Engagement> },
  ): TrackSummary {
    const owner = !!caller && (caller.userId === track.artistId || caller.role === 'ADMIN');
    // A private track of someone else is only here through the playlist's token (R5): token grant.
    const grant = owner ? 'o' : track.isPrivate ? 't' : 'v';
    const eng = ctx.engagement.get(track.id);
    return toTrackSummary(
      toTrack(track, {
        artist: this.userSummary(track.artistId, caller, ctx.summaries, ctx.rels),
        media: this.tracks.mediaUrls(track, grant),
        isLiked: eng?.isLiked ?? false,
        isReposted: eng?.isReposted ?? false,
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
      rels: Map<number, Relationship>;
      engagement: { tracks: Map<number, Engagement>; playlists: Map<number, Engagement> };
      viaToken: boolean;
      page: { page: number; size: number } | null;
    },
  ): Playlist {
    const trackCtx = { summaries: ctx.summaries, rels: ctx.rels, engagement: ctx.engagement.tracks };
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
    const eng = ctx.engagement.playlists.get(row.id);
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
      owner: this.userSummary(row.ownerId, caller, ctx.summaries, ctx.rels),
      isLiked: eng?.isLiked ?? false,
      isReposted: eng?.isReposted ?? false,
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
