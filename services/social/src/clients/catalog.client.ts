import { internalCallHeaders } from '@msp/http';
import { INTERNAL_ROUTES, InternalTracksResponseSchema, MAX_PAGE_SIZE, type Track } from '@msp/contracts';
import type { Caller } from '@msp/http';

export interface CatalogClientLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Batched reads from catalog's internal routes: one call per page, a short timeout, and `null`
 * when catalog is slow, down or answers garbage, so the caller can degrade to its own copy.
 */
export class CatalogClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly logger: CatalogClientLogger,
  ) {}

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
      const res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...internalCallHeaders() },
        body: JSON.stringify({ viewerId: caller?.userId ?? null, viewerRole: caller?.role ?? 'LISTENER', trackIds: ids }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        this.logger.warn({ path, status: res.status }, 'catalog answered an error; rendering tracks from social\'s copy');
        return null;
      }
      const body = InternalTracksResponseSchema.parse(await res.json());
      return new Map(body.tracks.map((t) => [t.id, t]));
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, 'catalog unreachable; rendering tracks from social\'s copy');
      return null;
    }
  }
}
