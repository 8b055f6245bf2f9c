import type { InternalTracksRequest, Track } from '@msp/contracts';
import type { Caller } from '@msp/http';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';

/**
 * INTERNAL_ROUTES.tracks: Track (full) records for another service's list (social's liked and
 * reposted tracks and its feed, messaging's shared tracks), rendered as TRK-6 renders them for the
 * viewer except for what only social knows: isLiked, isReposted and the artist's isFollowing come
 * back false, and the caller fills them. Catalog never calls social from here, so reads between
 * the two services go one way (docs/decisions.md "Service-to-service reads"). Tracks the viewer may
 * not see (R2: deleted, private or unfinished unless owner/admin; artist deleted or banned, R14;
 * R7 blocks from catalog's own copy, so an unanswered social never shows a blocked artist) are
 * left out. One statement whatever the count.
 */
export class InternalTracksService {
  constructor(
    private readonly reads: Pick<TrackReadsRepository, 'inOrder'>,
    private readonly presenter: Pick<TrackPresenter, 'present'>,
  ) {}

  async render(request: InternalTracksRequest): Promise<Track[]> {
    const ids = [...new Set(request.trackIds)];
    if (ids.length === 0) return [];
    const viewer: Caller | null = request.viewerId
      ? { userId: request.viewerId, role: request.viewerRole, tier: 'FREE', sessionId: null, username: null }
      : null;
    const rows = await this.reads.inOrder(ids, viewer?.userId ?? 0);
    const shown = rows.filter((row) => visibleTo(row, viewer));
    // In the caller's order (its own list order): `inOrder` keeps it.
    return this.presenter.present(shown, viewer, { offline: true });
  }
}

function visibleTo(row: ReadTrack, viewer: Caller | null): boolean {
  if (row.deletedAt) return false;
  if (viewer?.role === 'ADMIN' || row.artistId === viewer?.userId) return true;
  return !row.isPrivate && !row.heldBack && row.state === 'FINISHED' && !row.artistHidden && !row.blocked;
}
