import { toPage, toUserSummary, type Page, type Playlist, type RepostHistoryEntry, type Track } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { whenCatalogUnavailable, type CatalogClient } from '@msp/runtime';
import type { UserRef } from '@msp/contracts';
import { assertActivityVisible, requireVisibleUser, type UsersStore } from '../users/users.repository.js';
import { viewerOf, type Viewer } from '../users/viewer.js';
import type { ActivityStore } from './activity.repository.js';
import { mergeRendered, toPlaylist, type TrackListRow } from './track.mapper.js';

/** USR-20 … USR-22, ENG-18 … ENG-20: what a user liked and reposted. R8 applies to others' lists. */
export class ActivityService {
  constructor(
    private readonly repo: ActivityStore,
    private readonly users: UsersStore,
    private readonly catalog: Pick<CatalogClient, 'tracks'>,
  ) {}

  /** USR-20 (ref = 'me') and ENG-20. */
  async likedTracks(ref: UserRef | 'me', caller: Caller | null, page: number, size: number): Promise<Page<Track>> {
    const viewer = viewerOf(caller);
    const user = await this.owner(ref, viewer);
    const { rows, total } = await this.repo.tracks('track_likes', user.userId, viewer, page, size);
    const tracks = await this.render(rows, caller, viewer);
    return toPage(
      tracks.map(({ track }) => track),
      total,
      page,
      size,
    );
  }

  /** USR-22 (by username) and ENG-18 (ref = 'me'): each track with repostedBy and repostedAt. */
  async repostedTracks(ref: UserRef | 'me', caller: Caller | null, page: number, size: number): Promise<Page<Track>> {
    const viewer = viewerOf(caller);
    const user = await this.owner(ref, viewer);
    const [reposter] = await this.users.summaries([user.userId], viewer.id);
    const { rows, total } = await this.repo.tracks('track_reposts', user.userId, viewer, page, size);
    const items = (await this.render(rows, caller, viewer)).map(({ row, track }) => ({
      ...track,
      ...(reposter ? { repostedBy: toUserSummary(reposter, reposter.userId !== viewer.id && reposter.isFollowing) } : {}),
      repostedAt: (row.repostedAt ?? row.createdAt).toISOString(),
    }));
    return toPage(items, total, page, size);
  }

  /** USR-21. */
  async likedPlaylists(ref: UserRef, caller: Caller | null, page: number, size: number): Promise<Page<Playlist>> {
    const viewer = viewerOf(caller);
    const user = await requireVisibleUser(this.users, ref, viewer);
    assertActivityVisible(user, viewer);
    const { rows, total } = await this.repo.likedPlaylists(user.userId, viewer, page, size);
    return toPage(
      rows.map((row) => toPlaylist(row, viewer.id)),
      total,
      page,
      size,
    );
  }

  /** ENG-19. */
  async repostHistory(ref: UserRef, caller: Caller | null, page: number, size: number): Promise<Page<RepostHistoryEntry>> {
    const viewer = viewerOf(caller);
    const user = await requireVisibleUser(this.users, ref, viewer);
    assertActivityVisible(user, viewer);
    const { rows, total } = await this.repo.repostHistory(user.userId, viewer, page, size);
    return toPage(
      rows.map((row) => ({ ...row, repostedAt: row.repostedAt.toISOString() })),
      total,
      page,
      size,
    );
  }

  /**
   * Track (full) records of one page: social picked the ids, order and total; catalog renders its
   * own fields (description, tags, release date, play counts, signed media URLs) for the caller in
   * one batched call. What social owns stays social's: the viewer's isLiked/isReposted, the like,
   * repost and comment counts and the artist summary (follower counts, isFollowing). A track catalog
   * leaves out is invisible to the caller (R2, R7) and is dropped from the page, so such a page can
   * hold fewer than `size` items. When catalog does not answer, the page is rendered from social's
   * copy alone (the client logs a warning).
   */
  private async render(rows: readonly TrackListRow[], caller: Caller | null, viewer: Viewer): Promise<Array<{ row: TrackListRow; track: Track }>> {
    const rendered = await whenCatalogUnavailable(
      this.catalog.tracks(
        caller,
        rows.map((row) => row.trackId),
      ),
      null,
    );
    return mergeRendered(rows, rendered, viewer.id);
  }

  /**
   * The user whose list is read. The caller's own lists ('me') need no lookup, so they work even
   * before identity's registration event has reached social.
   */
  private async owner(ref: UserRef | 'me', viewer: Viewer): Promise<{ userId: number }> {
    if (ref === 'me') return { userId: viewer.id };
    const user = await requireVisibleUser(this.users, ref, viewer);
    assertActivityVisible(user, viewer);
    return user;
  }
}
