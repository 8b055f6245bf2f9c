import { InternalClient, type InternalAnswer } from '@msp/http';
import { INTERNAL_OPERATIONS, MAX_PAGE_SIZE, type Playlist, type Role, type Track } from '@msp/contracts';

export interface CatalogClientLogger {
  warn(obj: object, msg: string): void;
}

/** catalog did not answer in time, or answered an error. */
export class CatalogUnavailableError extends Error {
  constructor(message = 'catalog did not answer', options?: ErrorOptions) {
    super(message, options);
    this.name = 'CatalogUnavailableError';
  }
}

/** Who reads: catalog renders every resource as this viewer may see it (R2, R6, R7 in docs/rules.md). */
export interface CatalogViewer {
  userId: number;
  role?: Role;
}

/**
 * The one client of catalog's batched internal reads (`INTERNAL_OPERATIONS.tracks` / `.playlists`):
 * one call per kind for a whole page, never one per item; the configured short timeout; answers
 * typed by their contract (`InternalClient`'s policy: our own services serialise them through their
 * response schemas; a caller that keeps only some fields parses them itself). Every method throws `CatalogUnavailableError` when catalog
 * does not give a valid answer: the call site chooses its failure policy explicitly, either letting
 * it fail the request or degrading with `whenCatalogUnavailable(call, fallback)`.
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

  private async answer<T>(path: string, call: Promise<InternalAnswer<T>>): Promise<T> {
    try {
      const { body } = await call;
      if (body === undefined) throw new Error('catalog answered without a body');
      return body;
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, 'catalog did not answer');
      throw new CatalogUnavailableError('catalog did not answer', { cause: err });
    }
  }

  private static request(viewer: CatalogViewer | null) {
    return { viewerId: viewer?.userId ?? null, viewerRole: viewer?.role ?? 'LISTENER' };
  }

  /** Track (full) records as TRK-6 renders them for the viewer, by id; ids left out are not visible to them. */
  async tracks(viewer: CatalogViewer | null, trackIds: readonly number[]): Promise<Map<number, Track>> {
    const ids = [...new Set(trackIds)];
    if (ids.length === 0) return new Map();
    if (ids.length > MAX_PAGE_SIZE) throw new Error(`a page holds at most ${MAX_PAGE_SIZE} tracks`);
    const { tracks } = await this.answer(
      INTERNAL_OPERATIONS.tracks.path,
      this.http.send(INTERNAL_OPERATIONS.tracks, { body: { ...CatalogClient.request(viewer), trackIds: ids } }),
    );
    return new Map(tracks.map((t) => [t.id, t]));
  }

  /** Playlists as the viewer sees them, by id; ids left out are not visible to them. */
  async playlists(viewer: CatalogViewer | null, playlistIds: readonly number[]): Promise<Map<number, Playlist>> {
    const ids = [...new Set(playlistIds)];
    if (ids.length === 0) return new Map();
    const { playlists } = await this.answer(
      INTERNAL_OPERATIONS.playlists.path,
      this.http.send(INTERNAL_OPERATIONS.playlists, { body: { ...CatalogClient.request(viewer), playlistIds: ids } }),
    );
    return new Map(playlists.map((p) => [p.id, p]));
  }
}

/** The degrading failure policy: `fallback` when catalog is unavailable; any other error still throws. */
export async function whenCatalogUnavailable<T, F>(call: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof CatalogUnavailableError) return fallback;
    throw err;
  }
}
