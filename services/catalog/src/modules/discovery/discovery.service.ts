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
import type { SocialClient } from '../../clients/social.client.js';
import type { PlaylistPresenter } from '../playlists/playlist-presenter.js';
import type { PlaylistsService } from '../playlists/playlists.service.js';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import { toRadioTrack } from '../tracks/track.mapper.js';
import type { TrackReadsService } from '../tracks/track-reads.service.js';
import { todayUtc } from '../uploads/upload-fields.js';
import type { DiscoveryRepository, SearchKind } from './discovery.repository.js';
import { parseLink } from './resolve-link.js';
import { searchTerms } from './search-query.js';

export interface DiscoveryServiceDeps {
  repo: DiscoveryRepository;
  tracks: TrackReadsService;
  playlists: PlaylistsService;
  trackPresenter: TrackPresenter;
  playlistPresenter: PlaylistPresenter;
  social: SocialClient;
  webBaseUrl: string;
}

interface PageQuery {
  page: number;
  size: number;
}

const viewerIdOf = (caller: Caller | null) => caller?.userId ?? 0;
const emptyRef = { track: null, playlist: null, user: null, repostedBy: null, repostedAt: null };

/** DSC-2 … DSC-7: trending, search, resolve and stations. Visibility is decided in SQL before paging. */
export class DiscoveryService {
  private readonly repo: DiscoveryRepository;

  constructor(private readonly deps: DiscoveryServiceDeps) {
    this.repo = deps.repo;
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
    const [tracks, playlists, users] = await Promise.all([
      this.renderTracks(ids('TRACK'), caller),
      this.renderPlaylists(ids('PLAYLIST'), caller),
      this.renderUsers(ids('USER'), caller),
    ]);
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

  private async renderTracks(ids: number[], caller: Caller | null): Promise<Map<number, Track>> {
    const rows = await this.repo.rowsInOrder(ids);
    const tracks = await this.deps.trackPresenter.present(rows, caller);
    return new Map(tracks.map((t) => [t.id, t]));
  }

  private async renderPlaylists(ids: number[], caller: Caller | null): Promise<Map<number, Playlist>> {
    if (ids.length === 0) return new Map();
    const rows = await this.repo.playlists(ids);
    const playlists = await this.deps.playlistPresenter.presentList(rows, caller);
    return new Map(playlists.map((p) => [p.id, p]));
  }

  private async renderUsers(ids: number[], caller: Caller | null) {
    if (ids.length === 0) return new Map();
    const [rows, rels] = await Promise.all([
      this.repo.userSummaries(ids),
      caller ? this.deps.social.viewerContext(caller.userId, { userIds: ids }).then((c) => c.relationships) : Promise.resolve(new Map()),
    ]);
    return new Map(rows.map((r) => [r.userId, toUserSummary(r, rels.get(r.userId)?.isFollowing ?? false)]));
  }

  // ───────────────────────────── DSC-2 ─────────────────────────────

  async trending(caller: Caller | null, query: PageQuery & { genre?: string }): Promise<Page<Track>> {
    const genre = query.genre?.trim().toLowerCase() || null;
    const { rows, total } = await this.repo.trending(viewerIdOf(caller), genre, query.page, query.size);
    const rank = new Map(rows.map((r, i) => [r.id, query.page * query.size + i + 1]));
    const tracks = await this.deps.trackPresenter.present(rows, caller);
    return toPage(tracks.map((t) => ({ ...t, trendingRank: rank.get(t.id)! })), total, query.page, query.size);
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
    const { rows, total } = await this.repo.genreStation(viewerIdOf(caller), genre.trim().toLowerCase(), todayUtc(), query.page, query.size);
    return this.radioPage(rows, total, caller, query);
  }

  async artistStation(caller: Caller | null, artistId: number, query: PageQuery): Promise<Page<RadioTrack>> {
    const admin = caller?.role === 'ADMIN';
    if (!admin && !(await this.repo.visibleUser(artistId, viewerIdOf(caller)))) throw new AppError('USER_NOT_FOUND');
    const { rows, total } = await this.repo.artistStation(viewerIdOf(caller), artistId, todayUtc(), query.page, query.size);
    return this.radioPage(rows, total, caller, query);
  }

  async likesStation(caller: Caller, query: PageQuery): Promise<Page<RadioTrack>> {
    const { rows, total } = await this.repo.likesStation(caller.userId, todayUtc(), query.page, query.size);
    return this.radioPage(rows, total, caller, query);
  }

  private async radioPage(rows: Parameters<TrackPresenter['present']>[0], total: number, caller: Caller | null, query: PageQuery) {
    const tracks = await this.deps.trackPresenter.present(rows, caller);
    return toPage(tracks.filter((t) => t.trackUrl && t.waveformUrl).map(toRadioTrack), total, query.page, query.size);
  }
}
