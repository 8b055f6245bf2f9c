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
        headers: { 'content-type': 'application/json' },
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

  /** The viewer's likes and reposts among these tracks. Empty map on failure (flags false). */
  async trackEngagement(viewerId: number, trackIds: readonly number[]): Promise<Map<number, Engagement>> {
    const ids = [...new Set(trackIds)].slice(0, 1000);
    if (ids.length === 0) return new Map();
    const out = await this.post(INTERNAL_ROUTES.engagement, { viewerId, trackIds: ids, playlistIds: [] }, (j) => EngagementResponseSchema.parse(j));
    return new Map((out?.tracks ?? []).map((e) => [e.id, e]));
  }

  /**
   * The viewer's likes and reposts among tracks AND playlists in one call (playlist pages: the
   * playlists and their first tracks). Empty maps on failure (flags false).
   */
  async engagement(
    viewerId: number,
    trackIds: readonly number[],
    playlistIds: readonly number[],
  ): Promise<{ tracks: Map<number, Engagement>; playlists: Map<number, Engagement> }> {
    const tIds = [...new Set(trackIds)].slice(0, 1000);
    const pIds = [...new Set(playlistIds)].slice(0, 1000);
    if (tIds.length === 0 && pIds.length === 0) return { tracks: new Map(), playlists: new Map() };
    const out = await this.post(INTERNAL_ROUTES.engagement, { viewerId, trackIds: tIds, playlistIds: pIds }, (j) => EngagementResponseSchema.parse(j));
    return {
      tracks: new Map((out?.tracks ?? []).map((e) => [e.id, e])),
      playlists: new Map((out?.playlists ?? []).map((e) => [e.id, e])),
    };
  }
}
