import type { InternalTracksRequest, Track } from '@msp/contracts';
import type { Caller } from '@msp/http';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { hiddenOwnerIds } from '../user-bans/hidden-owners.js';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import { PUBLIC_TRACK } from '../tracks/tracks.repository.js';
import { trackSelect } from '../tracks/track.mapper.js';

/**
 * INTERNAL_ROUTES.tracks: Track (full) records for another service's list (social's liked and
 * reposted tracks), rendered exactly as TRK-6 renders them for the viewer. Tracks the viewer may
 * not see (R2: deleted, private or unfinished unless owner/admin; artist deleted or banned, R14; R7 blocks, which
 * the presenter drops) are left out. One query for the tracks, one for deleted or banned artists, and the
 * presenter's batched reads: the cost does not grow per item.
 */
export class InternalTracksService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly presenter: TrackPresenter,
  ) {}

  async render(request: InternalTracksRequest): Promise<Track[]> {
    const ids = [...new Set(request.trackIds)];
    if (ids.length === 0) return [];
    const viewer: Caller | null = request.viewerId
      ? { userId: request.viewerId, role: request.viewerRole, tier: 'FREE', sessionId: null, username: null }
      : null;
    const admin = viewer?.role === 'ADMIN';
    const visible: Prisma.TrackWhereInput = admin
      ? { deletedAt: null }
      : viewer
        ? { OR: [{ artistId: viewer.userId, deletedAt: null }, PUBLIC_TRACK] }
        : PUBLIC_TRACK;
    const rows = await this.prisma.track.findMany({ where: { id: { in: ids }, ...visible }, select: trackSelect });
    // TRK-6 hides tracks of deleted or banned artists (R14) from everyone but their owner and admins.
    const others = [...new Set(rows.filter((r) => !admin && r.artistId !== viewer?.userId).map((r) => r.artistId))];
    const deleted = await hiddenOwnerIds(this.prisma, others);
    const shown = rows.filter((r) => admin || r.artistId === viewer?.userId || !deleted.has(r.artistId));
    const tracks = await this.presenter.present(shown, viewer);
    // The caller's order (its own list order), not the database's.
    const byId = new Map(tracks.map((t) => [t.id, t]));
    return ids.flatMap((id) => {
      const track = byId.get(id);
      return track ? [track] : [];
    });
  }
}
