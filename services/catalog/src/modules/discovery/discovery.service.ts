import { toPage, toUserSummary, type Page, type RadioTrack, type ResolveResult, type ResourceRef, type SearchType, type Track } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { PlaylistPresenter } from '../playlists/playlist-presenter.js';
import type { PlaylistsService } from '../playlists/playlists.service.js';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import { toRadioTrack } from '../tracks/track.mapper.js';
import type { TrackReadsService } from '../tracks/track-reads.service.js';
import { todayUtc } from '../uploads/upload-fields.js';
import {
  composeStation,
  STATION_SIZE,
  TRENDING_SIZE,
  TRENDING_SLACK,
  type ChartEntry,
  type DiscoveryStore,
  type SearchKind,
  type StationPick,
} from './discovery.repository.js';
import { StationPools } from './station-pools.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { parseLink } from './resolve-link.js';
import { SharedTtlCache } from '../../shared-cache.js';
import { pageTotal } from '../tracks/track-reads.service.js';
import { searchTerms } from './search-query.js';

export interface DiscoveryServiceDeps {
  repo: DiscoveryStore;
  reads: Pick<TrackReadsRepository, 'inOrderForViewer'>;
  stations: StationPools;
  tracks: Pick<TrackReadsService, 'get' | 'byToken'>;
  playlists: Pick<PlaylistsService, 'get' | 'byToken'>;
  trackPresenter: Pick<TrackPresenter, 'present'>;
  playlistPresenter: Pick<PlaylistPresenter, 'presentList'>;
  webBaseUrl: string;
  /** The chart per genre ('' for all) shared by every viewer (default: TRENDING_CHART_TTL_MS per replica). */
  charts?: SharedTtlCache<string, ChartEntry[]>;
}

/**
 * How long a replica keeps a trending chart (its ids in order): the scores move with every counted
 * play, like, repost and comment, so a chart is at most this old; each page's tracks are checked as
 * they are now.
 */
export const TRENDING_CHART_TTL_MS = 3_000;

interface PageQuery {
  page: number;
  size: number;
}

const viewerIdOf = (caller: Caller | null) => caller?.userId ?? 0;
const emptyRef = { track: null, playlist: null, user: null, repostedBy: null, repostedAt: null };

/** DSC-2 … DSC-7: trending, search, resolve and stations. Visibility is decided in SQL before paging. */
export class DiscoveryService {
  private readonly repo: DiscoveryStore;

  /** The chart per genre ('' for all), the same for every viewer, kept TRENDING_CHART_TTL_MS per replica. */
  private readonly charts: SharedTtlCache<string, ChartEntry[]>;

  /** The genres' parts of the day's stations (the pools' minute; at most a few hundred genres). */
  private readonly genreParts = new StationPools(60_000, 500);

  constructor(private readonly deps: DiscoveryServiceDeps) {
    this.repo = deps.repo;
    this.charts = deps.charts ?? new SharedTtlCache<string, ChartEntry[]>(TRENDING_CHART_TTL_MS, 200);
  }

  // ───────────────────────────── DSC-3 ─────────────────────────────

  async search(caller: Caller | null, query: PageQuery & { q: string; type: SearchType; genre?: string }): Promise<Page<ResourceRef>> {
    const terms = searchTerms(query.q);
    if (!terms) return toPage([], 0, query.page, query.size);
    const genre = query.genre?.trim().toLowerCase() || null;
    const all: SearchKind[] = genre ? ['TRACK', 'PLAYLIST'] : ['TRACK', 'USER', 'PLAYLIST'];
    const kinds = query.type === 'ALL' ? all : all.filter((k) => k === query.type);
    if (kinds.length === 0) return toPage([], 0, query.page, query.size);
    const viewerId = viewerIdOf(caller);
    const { hits, total } = await this.repo.search(terms, kinds, viewerId, genre, query.page, query.size);
    const ids = (kind: SearchKind) => hits.filter((h) => h.type === kind).map((h) => h.id);
    // Tracks with the viewer's flags and users with isFollowing come from catalog's copies (one
    // statement each, as on every track page); playlists from the playlist presenter, whose flags
    // are catalog's copies too: a search page calls no other service.
    const [trackPage, playlistRows, userRows] = await Promise.all([
      ids('TRACK').length > 0 ? this.deps.reads.inOrderForViewer(ids('TRACK'), viewerId) : Promise.resolve(null),
      ids('PLAYLIST').length > 0 ? this.repo.playlists(ids('PLAYLIST')) : Promise.resolve([]),
      ids('USER').length > 0 ? this.repo.userSummaries(ids('USER'), viewerId) : Promise.resolve([]),
    ]);
    const playlistList = playlistRows.length > 0 ? await this.deps.playlistPresenter.presentList(playlistRows, caller) : [];
    const trackList = trackPage ? await this.deps.trackPresenter.present(trackPage.rows, caller, { flags: trackPage.flags }) : [];
    const tracks = new Map(trackList.map((t) => [t.id, t]));
    const playlists = new Map(playlistList.map((p) => [p.id, p]));
    const users = new Map(userRows.map((r) => [r.userId, toUserSummary(r, r.isFollowing)]));
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

  /**
   * The chart is the same for every viewer no block involves: its ids (TRENDING_SIZE + TRENDING_SLACK
   * of them) are kept per genre for TRENDING_CHART_TTL_MS, and a page is cut from them and read with
   * the caller's flags in one statement (`inOrderForViewer`), which also tells whether any block
   * involves the caller. If one does, the artists a block separates are taken out of the chart
   * before paging (R7: pages stay full, the total is the caller's); should that leave fewer than
   * TRENDING_SIZE of a chart cut at its slack, the caller's chart is read in SQL instead.
   */
  async trending(caller: Caller | null, query: PageQuery & { genre?: string }): Promise<Page<Track>> {
    const genre = query.genre?.trim().toLowerCase() || null;
    const viewerId = viewerIdOf(caller);
    const chart = await this.charts.get(genre ?? '', () => this.repo.trendingChart(genre));
    const start = query.page * query.size;
    const cut = (list: readonly ChartEntry[]) => list.slice(Math.min(start, TRENDING_SIZE), Math.min(start + query.size, TRENDING_SIZE)).map((e) => e.id);
    let list: readonly ChartEntry[] = chart;
    let ids = cut(list);
    let page = await this.deps.reads.inOrderForViewer(ids, viewerId);
    if (page.viewerBlocks) {
      const blocked = await this.repo.blocksOf(viewerId);
      list = chart.filter((e) => !blocked.has(e.artistId));
      if (list.length < TRENDING_SIZE && chart.length >= TRENDING_SIZE + TRENDING_SLACK) return this.trendingInSql(caller, viewerId, genre, query);
      ids = cut(list);
      page = await this.deps.reads.inOrderForViewer(ids, viewerId);
    }
    const rank = new Map(ids.map((id, i) => [id, start + i + 1]));
    const tracks = await this.deps.trackPresenter.present(page.rows.filter(listedNow), caller, { flags: page.flags });
    return toPage(
      tracks.map((t) => ({ ...t, trendingRank: rank.get(t.id)! })),
      Math.min(list.length, TRENDING_SIZE),
      query.page,
      query.size,
    );
  }

  /** The caller's chart read in SQL (blocks shortened the shared chart below TRENDING_SIZE). */
  private async trendingInSql(caller: Caller | null, viewerId: number, genre: string | null, query: PageQuery): Promise<Page<Track>> {
    const { rows } = await this.repo.trendingPage(viewerId, genre, query.page, query.size);
    const total = await pageTotal(rows.length, query, () => this.repo.trendingCount(viewerId, genre));
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

  /**
   * A genre's part of the day (shared by the genre's station and every artist and likes station that
   * holds the genre), kept apart from the per-artist and per-listener pools: a burst of new listeners
   * or artists (each a pool of its own) never pushes the few dozen genre parts out, which cost far more
   * to compute than any of those pools.
   */
  private genrePart(day: string, key: string): Promise<StationPick[]> {
    return this.genreParts.get(`genre:${day}:${key}`, () => this.repo.genrePicks(day, key));
  }

  /**
   * DSC-6: a pool not kept yet is read with the check that the caller may see the artist, in one
   * statement (`artistSeeds`); a kept one needs the check alone. Either way the 404 comes before
   * any of the pool is shown.
   */
  async artistStation(caller: Caller | null, artistId: number, query: PageQuery): Promise<Page<RadioTrack>> {
    const admin = caller?.role === 'ADMIN';
    const viewerId = viewerIdOf(caller);
    const day = todayUtc();
    let visible: boolean | null = null;
    const pool = await this.deps.stations.get(`artist:${day}:${artistId}`, async () => {
      const seeds = await this.repo.artistSeeds(day, artistId, viewerId);
      visible = seeds.visible;
      const parts = await Promise.all(seeds.genres.map((g) => this.genrePart(day, g)));
      return composeStation([...parts, seeds.own], STATION_SIZE);
    });
    if (!admin && !(visible ?? (await this.repo.visibleUser(artistId, viewerId)))) throw new AppError('USER_NOT_FOUND');
    return this.radioPage(pool, caller, query);
  }

  /**
   * DSC-7: the artists and genres of the caller's likes, minus the tracks they liked. The seeds and
   * the liked tracks come from one statement; the pool (the seeds' genre parts and artists' picks,
   * merged in the day's order, the liked ones left out as the merge meets them) is kept per caller
   * for the pools' minute (an empty one is not kept), so a page costs what any station page costs; a
   * new like or a new seed (a like of another artist or genre) counts from the next pool, within a
   * minute.
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
      return composeStation([...parts, own!], STATION_SIZE, new Set(seeds.liked));
    });
    // No likes yet (or not yet copied from social): not kept, so the first like shows at once.
    if (pool.length === 0) this.deps.stations.forget(key);
    return this.radioPage(pool, caller, query);
  }

  /**
   * One page of a station's day for the caller: the page's rows, with the caller's flags, in one
   * statement (`inOrderForViewer`), each checked again as it is now. That statement also tells
   * whether any block involves the caller: if one does, the pool minus the artists a block
   * separates from the caller (R7, catalog's copy; before paging, so pages are full and the total
   * is the caller's) is paged instead.
   */
  private async radioPage(pool: readonly StationPick[], caller: Caller | null, query: PageQuery): Promise<Page<RadioTrack>> {
    const viewerId = viewerIdOf(caller);
    const start = query.page * query.size;
    const cut = (list: readonly StationPick[]) => list.slice(start, start + query.size).map((p) => p.id);
    let visible = pool;
    let page = await this.deps.reads.inOrderForViewer(cut(visible), viewerId);
    if (page.viewerBlocks) {
      const blocked = await this.repo.blocksOf(viewerId);
      visible = pool.filter((p) => !blocked.has(p.artistId));
      page = await this.deps.reads.inOrderForViewer(cut(visible), viewerId);
    }
    const tracks = await this.deps.trackPresenter.present(page.rows.filter(stillOnAir), caller, { flags: page.flags });
    return toPage(tracks.filter((t) => t.trackUrl && t.waveformUrl).map(toRadioTrack), visible.length, query.page, query.size);
  }
}

/** A chart track as it is now (the chart may be seconds old): still listed (R2, R14) and not blocked (R7). */
function listedNow(row: ReadTrack): boolean {
  return !row.deletedAt && !row.isPrivate && !row.heldBack && row.state === 'FINISHED' && !row.artistHidden && !row.blocked;
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
