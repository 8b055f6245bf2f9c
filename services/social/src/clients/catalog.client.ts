import { InternalClient } from '@msp/http';
import { INTERNAL_ROUTES, MAX_PAGE_SIZE, type InternalTracksResponse, type Track } from '@msp/contracts';
import type { Caller } from '@msp/http';

export interface CatalogClientLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Batched reads from catalog's internal routes: one call per page, a short timeout, and `null`
 * when catalog is slow, down or answers garbage, so the caller can degrade to its own copy.
 */
export class CatalogClient {
  private readonly http: InternalClient;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    private readonly logger: CatalogClientLogger,
  ) {
    this.http = new InternalClient({ target: 'catalog', baseUrl, timeoutMs });
  }

  /**
   * Track (full) records as TRK-6 renders them for the caller, by id. Ids catalog left out are
   * invisible to the caller (R2, R7). `null` when catalog did not answer.
   */
  async tracks(caller: Caller | null, trackIds: readonly number[]): Promise<Map<number, Track> | null> {
    const ids = [...new Set(trackIds)];
    if (ids.length === 0) return new Map();
    if (ids.length > MAX_PAGE_SIZE) throw new Error(`a page holds at most ${MAX_PAGE_SIZE} tracks`);
    const path = INTERNAL_ROUTES.tracks;
    try {
      const body = await this.http.post<InternalTracksResponse>(path, {
        viewerId: caller?.userId ?? null,
        viewerRole: caller?.role ?? 'LISTENER',
        trackIds: ids,
      });
      return new Map(body.tracks.map((t) => [t.id, t]));
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, "catalog did not answer; rendering tracks from social's copy");
      return null;
    }
  }
}
