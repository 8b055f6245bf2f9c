import { InternalClient } from '@msp/http';
import { INTERNAL_OPERATIONS, type EngagementResponse } from '@msp/contracts';

export interface SocialClientLogger {
  warn(obj: object, msg: string): void;
}

export type Relationship = EngagementResponse['users'][number];
export type Engagement = EngagementResponse['tracks'][number];

/**
 * Catalog's one read from social: `/internal/engagement`, once per playlist or search page, for
 * what only social knows about the viewer (isFollowing, isLiked, isReposted); track pages answer
 * those from catalog's copies instead (TrackPresenter). A short timeout, and false flags when
 * social is slow or down. Never used for R7 hiding (catalog's copy of the blocks decides that in
 * SQL), and never on catalog's own internal routes, so no request cycles between the two services.
 */
export class SocialClient {
  private readonly http: InternalClient;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    private readonly logger: SocialClientLogger,
  ) {
    this.http = new InternalClient({ target: 'social', baseUrl, timeoutMs });
  }

  /**
   * Everything a page needs from social in ONE call: the viewer's relationships to the page's
   * people (isFollowing; its block fields only as a safety net while catalog's copy catches up)
   * and likes/reposts among its tracks and playlists. Empty maps on failure (no flags).
   */
  async viewerContext(
    viewerId: number,
    items: { userIds?: readonly number[]; trackIds?: readonly number[]; playlistIds?: readonly number[] },
  ): Promise<ViewerContext> {
    const userIds = [...new Set(items.userIds ?? [])].filter((id) => id !== viewerId).slice(0, 500);
    const trackIds = [...new Set(items.trackIds ?? [])].slice(0, 1000);
    const playlistIds = [...new Set(items.playlistIds ?? [])].slice(0, 1000);
    if (userIds.length + trackIds.length + playlistIds.length === 0) return emptyViewerContext();
    // social's answer is trusted (its tests check the text against the schema); null when it did not answer.
    const out = await this.http.send(INTERNAL_OPERATIONS.engagement, { body: { viewerId, userIds, trackIds, playlistIds } }).then(
      (answer) => answer.body ?? null,
      (err: unknown) => {
        this.logger.warn({ path: INTERNAL_OPERATIONS.engagement.path, err: (err as Error).message }, 'social did not answer; degrading');
        return null;
      },
    );
    return {
      relationships: new Map((out?.users ?? []).map((r) => [r.userId, r])),
      tracks: new Map((out?.tracks ?? []).map((e) => [e.id, e])),
      playlists: new Map((out?.playlists ?? []).map((e) => [e.id, e])),
    };
  }
}

export interface ViewerContext {
  relationships: Map<number, Relationship>;
  tracks: Map<number, Engagement>;
  playlists: Map<number, Engagement>;
}

export function emptyViewerContext(): ViewerContext {
  return { relationships: new Map(), tracks: new Map(), playlists: new Map() };
}
