import { internalCallHeaders } from '@msp/http';
import {
  EngagementResponseSchema,
  INTERNAL_ROUTES,
  RelationshipsResponseSchema,
  type EngagementResponse,
  type RelationshipsResponse,
} from '@msp/contracts';

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
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly logger: SocialClientLogger,
  ) {}

  private async post<T>(path: string, body: unknown, parse: (json: unknown) => T): Promise<T | null> {
    try {
      const res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...internalCallHeaders() },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        this.logger.warn({ path, status: res.status }, 'social answered an error; degrading');
        return null;
      }
      return parse(await res.json());
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, 'social unreachable; degrading');
      return null;
    }
  }

  /** How the viewer relates to each user (isFollowing, blocks both ways). Empty map on failure. */
  async relationships(viewerId: number, userIds: readonly number[]): Promise<Map<number, Relationship>> {
    const ids = [...new Set(userIds)].filter((id) => id !== viewerId).slice(0, 500);
    if (ids.length === 0) return new Map();
    const out = await this.post(INTERNAL_ROUTES.relationships, { viewerId, userIds: ids }, (j) => RelationshipsResponseSchema.parse(j));
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
    const out = await this.post(INTERNAL_ROUTES.engagement, { viewerId, userIds, trackIds, playlistIds }, (j) => EngagementResponseSchema.parse(j));
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
