import { InternalClient } from '@msp/http';
import { INTERNAL_ROUTES, type EngagementResponse, type RelationshipsResponse } from '@msp/contracts';

export interface SocialClientLogger {
  warn(obj: object, msg: string): void;
}

export type Relationship = RelationshipsResponse['items'][number];
export type Engagement = EngagementResponse['tracks'][number];

/**
 * Batched reads from social's internal routes: one call per page, a short timeout, and graceful
 * degradation (no flags, nobody hidden) when social is slow or down, as the platform rule asks.
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

  /** social's answer (trusted: serialised by its response schema), or null when it did not answer. */
  private async post<T>(path: string, body: unknown): Promise<T | null> {
    try {
      return await this.http.post<T>(path, body);
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, 'social did not answer; degrading');
      return null;
    }
  }

  /** How the viewer relates to each user (isFollowing, blocks both ways). Empty map on failure. */
  async relationships(viewerId: number, userIds: readonly number[]): Promise<Map<number, Relationship>> {
    const ids = [...new Set(userIds)].filter((id) => id !== viewerId).slice(0, 500);
    if (ids.length === 0) return new Map();
    const out = await this.post<RelationshipsResponse>(INTERNAL_ROUTES.relationships, { viewerId, userIds: ids });
    return new Map((out?.items ?? []).map((r) => [r.userId, r]));
  }

  /**
   * Everything a page needs from social in ONE call: the viewer's relationships to the page's
   * people (isFollowing, R7 blocks) and likes/reposts among its tracks and playlists. Empty maps
   * on failure (no flags, nobody hidden).
   */
  async viewerContext(
    viewerId: number,
    items: { userIds?: readonly number[]; trackIds?: readonly number[]; playlistIds?: readonly number[] },
  ): Promise<ViewerContext> {
    const userIds = [...new Set(items.userIds ?? [])].filter((id) => id !== viewerId).slice(0, 500);
    const trackIds = [...new Set(items.trackIds ?? [])].slice(0, 1000);
    const playlistIds = [...new Set(items.playlistIds ?? [])].slice(0, 1000);
    if (userIds.length + trackIds.length + playlistIds.length === 0) return emptyViewerContext();
    const out = await this.post<EngagementResponse>(INTERNAL_ROUTES.engagement, { viewerId, userIds, trackIds, playlistIds });
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
