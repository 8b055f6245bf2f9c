import { toPage, toUserSummary, type FeedItem, type Page, type Playlist, type Track, type UserSummary } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { whenCatalogUnavailable, type CatalogClient } from '@msp/runtime';
import { mergeRendered, toPlaylist } from '../engagement/track.mapper.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { FeedRepository } from './feed.repository.js';

const DAY_MS = 86_400_000;

/**
 * DSC-1 (R18): the caller's feed. Social picks the page (followed users' actions, dedupe,
 * visibility, order, total) in one statement; catalog renders the page's tracks in one batched
 * call (signed media URLs, play counts), social keeps the fields it owns (flags, engagement
 * counts, artist). Playlists come from social's projection, like USR-21.
 */
export class FeedService {
  constructor(
    private readonly repo: FeedRepository,
    private readonly users: UsersRepository,
    private readonly catalog: CatalogClient,
    private readonly limits: { windowDays: number; maxItems: number },
  ) {}

  async feed(caller: Caller, page: number, size: number): Promise<Page<FeedItem>> {
    const since = new Date(Date.now() - this.limits.windowDays * DAY_MS);
    const { rows, total } = await this.repo.page(caller.userId, since, this.limits.maxItems, page, size);
    if (rows.length === 0) return toPage([], total, page, size);
    const trackIds = rows.filter((r) => r.resourceType === 'TRACK').map((r) => r.resourceId);
    const playlistIds = rows.filter((r) => r.resourceType === 'PLAYLIST').map((r) => r.resourceId);
    const [tracks, playlists, actors] = await Promise.all([
      this.renderTracks(trackIds, caller),
      this.repo.playlists(playlistIds, caller.userId),
      this.users.summaries([...new Set(rows.map((r) => r.actorId))], caller.userId),
    ]);
    const playlistById = new Map<number, Playlist>(playlists.map((p) => [p.playlistId, toPlaylist(p, caller.userId)]));
    const actorById = new Map<number, UserSummary>(actors.map((a) => [a.userId, toUserSummary(a, a.isFollowing)]));
    const items = rows.flatMap((row): FeedItem[] => {
      const actor = actorById.get(row.actorId);
      const track = row.resourceType === 'TRACK' ? tracks.get(row.resourceId) : undefined;
      const playlist = row.resourceType === 'PLAYLIST' ? playlistById.get(row.resourceId) : undefined;
      if (!actor || (!track && !playlist)) return [];
      const at = row.at.toISOString();
      const reposted = row.type.endsWith('_REPOSTED');
      return [
        {
          id: row.feedId,
          type: row.type,
          resource: {
            type: row.resourceType,
            id: row.resourceId,
            track: track ?? null,
            playlist: playlist ?? null,
            user: null,
            repostedBy: reposted ? actor : null,
            repostedAt: reposted ? at : null,
          },
          actor,
          likedBy: row.type.endsWith('_LIKED') ? actor : null,
          repostedBy: reposted ? actor : null,
          createdAt: at,
        },
      ];
    });
    return toPage(items, total, page, size);
  }

  /**
   * Track (full) records of the page: catalog's rendering merged with what social owns, or social's
   * copy alone when catalog does not answer. A track catalog leaves out is invisible to the caller.
   */
  private async renderTracks(ids: number[], caller: Caller): Promise<Map<number, Track>> {
    if (ids.length === 0) return new Map();
    const [own, rendered] = await Promise.all([this.repo.tracks(ids, caller.userId), whenCatalogUnavailable(this.catalog.tracks(caller, ids), null)]);
    return new Map(mergeRendered(own, rendered, caller.userId).map(({ row, track }) => [row.trackId, track]));
  }
}
