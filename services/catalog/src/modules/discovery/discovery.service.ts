import {
  toPage,
  toUserSummary,
  type Page,
  type Playlist,
  type RadioTrack,
  type ResolveResult,
  type ResourceRef,
  type SearchType,
  type Track,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { emptyViewerContext, type SocialClient } from '../../clients/social.client.js';
import type { PlaylistPresenter } from '../playlists/playlist-presenter.js';
import type { PlaylistsService } from '../playlists/playlists.service.js';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import { toRadioTrack } from '../tracks/track.mapper.js';
import type { TrackReadsService } from '../tracks/track-reads.service.js';
import { todayUtc } from '../uploads/upload-fields.js';
import { composeStation, STATION_SIZE, type DiscoveryStore, type SearchKind, type StationPick } from './discovery.repository.js';
import type { StationPools } from './station-pools.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { parseLink } from './resolve-link.js';
import { SharedTtlCache } from '../../shared-cache.js';
import { pageTotal } from '../tracks/track-reads.service.js';
import { searchTerms } from './search-query.js';

export interface DiscoveryServiceDeps {
  repo: DiscoveryStore;
  reads: Pick<TrackReadsRepository, 'inOrder'>;
  stations: StationPools;
  tracks: Pick<TrackReadsService, 'get' | 'byToken'>;
  playlists: Pick<PlaylistsService, 'get' | 'byToken'>;
  trackPresenter: Pick<TrackPresenter, 'present'>;
  playlistPresenter: Pick<PlaylistPresenter, 'presentListWithContext'>;
  social: Pick<SocialClient, 'viewerContext'>;
  webBaseUrl: string;
  /** The chart's length per genre for viewers without blocks (default: a minute per replica). */
  chartLengths?: SharedTtlCache<string, number>;
}

interface PageQuery {
  page: number;
  size: number;
}

const viewerIdOf = (caller: Caller | null) => caller?.userId ?? 0;
const emptyRef = { track: null, playlist: null, user: null, repostedBy: null, repostedAt: null };

/** DSC-2 … DSC-7: trending, search, resolve and stations. Visibility is decided in SQL before paging. */
export class DiscoveryService {
  private readonly repo: DiscoveryStore;

  /** The chart's length per genre ('' for all) for viewers no block involves, kept a minute per replica. */
  private readonly chartLengths: SharedTtlCache<string, number>;

  constructor(private readonly deps: DiscoveryServiceDeps) {
    this.repo = deps.repo;
    this.chartLengths = deps.chartLengths ?? new SharedTtlCache<string, number>(60_000, 200);
  }

  // ───────────────────────────── DSC-3 ─────────────────────────────

  async search(caller: Caller | null, query: PageQuery & { q: string; type: SearchType; genre?: string }): Promise<Page<ResourceRef>> {
    const terms = searchTerms(query.q);
    if (!terms) return toPage([], 0, query.page, query.size);
    const genre = query.genre?.trim().toLowerCase() || null;
    const all: SearchKind[] = genre ? ['TRACK', 'PLAYLIST'] : ['TRACK', 'USER', 'PLAYLIST'];
    const kinds = query.type === 'ALL' ? all : all.filter((k) => k === query.type);
    if (kinds.length === 0) return toPage([], 0, query.page, query.size);
    const { hits, total } = await this.repo.search(terms, kinds, viewerIdOf(caller), genre, query.page, query.size);
    const ids = (kind: SearchKind) => hits.filter((h) => h.type === kind).map((h) => h.id);
    // One call to social for the whole page: the tracks' and users' questions ride along with the
    // playlists' (asked once their first tracks are known), or go alone when there are no playlists.
    const [trackRows, playlistRows, userRows] = await Promise.all([
      this.repo.rowsInOrder(ids('TRACK')),
      ids('PLAYLIST').length > 0 ? this.repo.playlists(ids('PLAYLIST')) : Promise.resolve([]),
      ids('USER').length > 0 ? this.repo.userSummaries(ids('USER')) : Promise.resolve([]),
    ]);
    const alsoAsk = { trackIds: trackRows.map((r) => r.id), userIds: [...trackRows.map((r) => r.artistId), ...userRows.map((u) => u.userId)] };
    let context = emptyViewerContext();
    let playlistList: Playlist[] = [];
    if (playlistRows.length > 0) {
      ({ playlists: playlistList, context } = await this.deps.playlistPresenter.presentListWithContext(playlistRows, caller, alsoAsk));
    } else if (caller && alsoAsk.trackIds.length + alsoAsk.userIds.length > 0) {
      context = await this.deps.social.viewerContext(caller.userId, alsoAsk);
    }
    const trackList = await this.deps.trackPresenter.present(trackRows, caller, { context });
    const tracks = new Map(trackList.map((t) => [t.id, t]));
    const playlists = new Map(playlistList.map((p) => [p.id, p]));
    const users = new Map(userRows.map((r) => [r.userId, toUserSummary(r, context.relationships.get(r.userId)?.isFollowing ?? false)]));
    const content = hits.flatMap((h): ResourceRef[] => {
      if (h.type === 'TRACK') {
        const track = tracks.get(h.id);
        return track ? [{ ...emptyRef, type: 'TRACK', id: h.id, track }] : [];
      }
      if (h.type === 'PLAYLIST') {
        const playlist = playlists.get(h.id);
        return playlist ? [{ ...emptyRef, type: 'PLAYLIST', id: h.id, playlist }] : [];
      }
      const user = users.get(h.id);
      return user ? [{ ...emptyRef, type: 'USER', id: h.id, user }] : [];
    });
    return toPage(content, total, query.page, query.size);
  }

  // ───────────────────────────── DSC-2 ─────────────────────────────

  async trending(caller: Caller | null, query: PageQuery & { genre?: string }): Promise<Page<Track>> {
    const genre = query.genre?.trim().toLowerCase() || null;
    const viewerId = viewerIdOf(caller);
    const { rows, viewerBlocks } = await this.repo.trendingPage(viewerId, genre, query.page, query.size);
    // The chart's length is the same for every viewer no block involves: counted once per genre
    // for a short while (the scores themselves change only when the refresher runs).
    const total = await pageTotal(rows.length, query, () =>
      viewerBlocks ? this.repo.trendingCount(viewerId, genre) : this.chartLengths.get(genre ?? '', () => this.repo.trendingCount(0, genre)),
    );
    const rank = new Map(rows.map((r, i) => [r.id, query.page * query.size + i + 1]));
    const tracks = await this.deps.trackPresenter.present(rows, caller);
    return toPage(
      tracks.map((t) => ({ ...t, trendingRank: rank.get(t.id)! })),
      total,
      query.page,
      query.size,
    );
  }

  // ───────────────────────────── DSC-4 ─────────────────────────────

  async resolve(caller: Caller | null, url: string): Promise<ResolveResult> {
    const link = parseLink(url, this.deps.webBaseUrl);
    if (!link) throw AppError.validation([{ field: 'url', message: 'Not a profile, track or playlist link of this site' }]);
    const user = await this.repo.userByName(link.username);
    const admin = caller?.role === 'ADMIN';
    if (link.type === 'USER') {
      if (!user || (!admin && (user.isBanned || (await this.hasBlockedViewer(user.userId, caller))))) throw new AppError('USER_NOT_FOUND');
      return { type: 'USER', id: user.userId, resourceType: 'USER', resourceId: user.userId };
    }
    if (link.type === 'TRACK') {
      if (!user) throw new AppError('TRACK_NOT_FOUND');
      const row = await this.repo.trackBySlug(link.slug, user.userId);
      if (!row) throw new AppError('TRACK_NOT_FOUND');
      if (user.isBanned && !admin) throw new AppError('TRACK_NOT_FOUND');
      if (link.token) {
        if (link.token !== row.secretToken) throw new AppError('TRACK_NOT_FOUND');
        await this.deps.tracks.byToken(link.token, caller);
      } else {
        await this.deps.tracks.get(row.id, caller);
      }
      return { type: 'TRACK', id: row.id, resourceType: 'TRACK', resourceId: row.id };
    }
    if (!user) throw new AppError('PLAYLIST_NOT_FOUND');
    const row = await this.repo.playlistBySlug(link.slug, user.userId);
    if (!row || (user.isBanned && !admin)) throw new AppError('PLAYLIST_NOT_FOUND');
    if (link.token) {
      if (link.token !== row.secretToken) throw new AppError('PLAYLIST_NOT_FOUND');
      await this.deps.playlists.byToken(link.token, caller, { page: 0, size: 1 });
    } else {
      await this.deps.playlists.get(row.id, caller, { page: 0, size: 1 });
    }
    return { type: 'PLAYLIST', id: row.id, resourceType: 'PLAYLIST', resourceId: row.id };
  }

  private async hasBlockedViewer(userId: number, caller: Caller | null): Promise<boolean> {
    if (!caller || caller.userId === userId) return false;
    return this.repo.hasBlocked(userId, caller.userId);
  }

  // ───────────────────────────── DSC-5, DSC-6, DSC-7 ─────────────────────────────

  async genreStation(caller: Caller | null, genre: string, query: PageQuery): Promise<Page<RadioTrack>> {
    const pool = await this.genrePart(todayUtc(), genre.trim().toLowerCase());
    return this.radioPage(pool, caller, query);
  }

  /** A genre's part of the day (shared by the genre's station and every artist and likes station that holds the genre). */
  private genrePart(day: string, key: string): Promise<StationPick[]> {
    return this.deps.stations.get(`genre:${day}:${key}`, () => this.repo.genrePicks(day, key));
  }

  async artistStation(caller: Caller | null, artistId: number, query: PageQuery): Promise<Page<RadioTrack>> {
    const admin = caller?.role === 'ADMIN';
    if (!admin && !(await this.repo.visibleUser(artistId, viewerIdOf(caller)))) throw new AppError('USER_NOT_FOUND');
    const day = todayUtc();
    const pool = await this.deps.stations.get(`artist:${day}:${artistId}`, async () => {
      const [genres, own] = await Promise.all([this.repo.mainGenres(artistId), this.repo.artistPicks(day, [artistId], STATION_SIZE)]);
      const parts = await Promise.all(genres.map((g) => this.genrePart(day, g)));
      return composeStation([...parts, own], STATION_SIZE);
    });
    return this.radioPage(pool, caller, query);
  }

  /**
   * DSC-7: the artists and genres of the caller's likes, minus the tracks they liked. The pool
   * (their seeds' genre parts and artists' picks, with room for the liked ones, the liked ones
   * then taken out: one probe per pool track) is kept per caller for the pools' minute (an empty
   * one is not kept), so a page costs what any station page costs; a new like or a new seed (a like
   * of another artist or genre) counts from the next pool, within a minute.
   */
  async likesStation(caller: Caller, query: PageQuery): Promise<Page<RadioTrack>> {
    const day = todayUtc();
    const key = `likes:${day}:${caller.userId}`;
    const pool = await this.deps.stations.get(key, async () => {
      const seeds = await this.repo.likeSeeds(caller.userId);
      if (seeds.artists.length === 0 && seeds.genres.length === 0) return [];
      // Artists share the station: each gives at most its share of the day's tracks.
      const perArtist = Math.max(1, Math.ceil(STATION_SIZE / Math.max(1, seeds.artists.length)));
      const [own, ...parts] = await Promise.all([this.repo.artistPicks(day, seeds.artists, perArtist), ...seeds.genres.map((g) => this.genrePart(day, g))]);
      const picks = composeStation([...parts, own!], 2 * STATION_SIZE);
      const liked = await this.repo.likedAmong(
        caller.userId,
        picks.map((p) => p.id),
      );
      return picks.filter((p) => !liked.has(p.id)).slice(0, STATION_SIZE);
    });
    // No likes yet (or not yet copied from social): not kept, so the first like shows at once.
    if (pool.length === 0) this.deps.stations.forget(key);
    return this.radioPage(pool, caller, query);
  }

  /**
   * One page of a station's day for the caller: the pool minus the artists a block separates from
   * the caller (R7, catalog's copy; before paging, so pages are full and the total is the
   * caller's), then the page's rows in one statement, each checked again as it is now.
   */
  private async radioPage(pool: readonly StationPick[], caller: Caller | null, query: PageQuery): Promise<Page<RadioTrack>> {
    const blocked = caller ? await this.repo.blocksOf(caller.userId) : new Set<number>();
    const visible = blocked.size > 0 ? pool.filter((p) => !blocked.has(p.artistId)) : pool;
    const start = query.page * query.size;
    const ids = visible.slice(start, start + query.size).map((p) => p.id);
    const rows = (await this.deps.reads.inOrder(ids, viewerIdOf(caller))).filter(stillOnAir);
    const tracks = await this.deps.trackPresenter.present(rows, caller);
    return toPage(tracks.filter((t) => t.trackUrl && t.waveformUrl).map(toRadioTrack), visible.length, query.page, query.size);
  }
}

/** A station track as it is now (the pool may be a minute old): still public, FINISHED, playable, its artist present and not blocked. */
function stillOnAir(row: ReadTrack): boolean {
  return (
    !row.deletedAt &&
    !row.isPrivate &&
    !row.heldBack &&
    row.state === 'FINISHED' &&
    row.access === 'PLAYABLE' &&
    !!row.progressiveKey &&
    !!row.waveformKey &&
    !row.artistHidden &&
    !row.blocked
  );
}
