import type { InternalPlaylistsRequest, Playlist } from '@msp/contracts';
import type { Caller } from '@msp/http';
import type { PlaylistPresenter } from '../playlists/playlist-presenter.js';
import type { PlaylistsRepository } from '../playlists/playlists.repository.js';

/**
 * INTERNAL_ROUTES.playlists: Playlist records (list form) for another service (messaging renders
 * shared playlists per reader). Left out: playlists the viewer may not see (R6: private unless
 * owner/admin; owner deleted or banned, R14) and those a block separates from the viewer (R7, dropped by the
 * presenter). One query for the rows, one for deleted or banned owners, then the presenter's batched reads.
 */
export class InternalPlaylistsService {
  constructor(
    private readonly repo: Pick<PlaylistsRepository, 'findManyByIds' | 'hiddenOwners'>,
    private readonly presenter: Pick<PlaylistPresenter, 'presentList'>,
  ) {}

  async render(request: InternalPlaylistsRequest): Promise<Playlist[]> {
    const ids = [...new Set(request.playlistIds)];
    if (ids.length === 0) return [];
    const viewer: Caller | null = request.viewerId
      ? { userId: request.viewerId, role: request.viewerRole, tier: 'FREE', sessionId: null, username: null }
      : null;
    const admin = viewer?.role === 'ADMIN';
    const rows = await this.repo.findManyByIds(ids, { viewerId: viewer?.userId ?? null, admin });
    const others = [...new Set(rows.filter((r) => !admin && r.ownerId !== viewer?.userId).map((r) => r.ownerId))];
    const deleted = await this.repo.hiddenOwners(others);
    const shown = rows.filter((r) => admin || r.ownerId === viewer?.userId || !deleted.has(r.ownerId));
    // No call back to social (reads between the two go one way): flags false, R7 from catalog's copy.
    const playlists = await this.presenter.presentList(shown, viewer, { offline: true });
    const byId = new Map(playlists.map((p) => [p.id, p]));
    return ids.flatMap((id) => {
      const playlist = byId.get(id);
      return playlist ? [playlist] : [];
    });
  }
}
