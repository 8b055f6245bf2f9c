import { InternalClient } from '@msp/http';
import {
  INTERNAL_ROUTES,
  InternalPlaylistsResponseSchema,
  InternalTracksResponseSchema,
  PlaylistSchema,
  TrackSummarySchema,
  type Playlist,
  type Role,
  type TrackSummary,
} from '@msp/contracts';

export interface CatalogClientLogger {
  warn(obj: object, msg: string): void;
}

/** catalog did not answer (or answered an error): the caller decides whether to fail or degrade. */
export class CatalogUnavailableError extends Error {}

/** Shared resources as one reader sees them; an id missing from a map is not visible to that reader. */
export interface RenderedResources {
  tracks: Map<number, TrackSummary>;
  playlists: Map<number, Playlist>;
}

export function emptyResources(): RenderedResources {
  return { tracks: new Map(), playlists: new Map() };
}

// zod objects drop unknown keys: a Track (full) parses into exactly the Track summary fields.
const TrackSummaryOnly = TrackSummarySchema;
const PlaylistOnly = PlaylistSchema;

/**
 * catalog's batched internal reads (INTERNAL_ROUTES.tracks / .playlists): at most one call per kind
 * for a whole page of messages and one reader, never one per item; short timeout.
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

  private async post<T>(path: string, body: unknown, parse: (json: unknown) => T): Promise<T> {
    let answer: unknown;
    try {
      answer = await this.http.post(path, body);
    } catch (err) {
      this.logger.warn({ path, err: (err as Error).message }, 'catalog did not answer');
      throw new CatalogUnavailableError('catalog did not answer', { cause: err });
    }
    return parse(answer);
  }

  /** The given tracks and playlists as `viewerId` sees them (R2, R6, R7). Throws CatalogUnavailableError. */
  async render(viewer: { userId: number; role?: Role }, trackIds: readonly number[], playlistIds: readonly number[]): Promise<RenderedResources> {
    const tracks = [...new Set(trackIds)];
    const playlists = [...new Set(playlistIds)];
    const request = { viewerId: viewer.userId, viewerRole: viewer.role ?? 'LISTENER' };
    const [t, p] = await Promise.all([
      tracks.length === 0
        ? Promise.resolve([])
        : this.post(INTERNAL_ROUTES.tracks, { ...request, trackIds: tracks }, (j) => InternalTracksResponseSchema.parse(j).tracks),
      playlists.length === 0
        ? Promise.resolve([])
        : this.post(INTERNAL_ROUTES.playlists, { ...request, playlistIds: playlists }, (j) => InternalPlaylistsResponseSchema.parse(j).playlists),
    ]);
    return {
      tracks: new Map(t.map((track) => [track.id, TrackSummaryOnly.parse(track)])),
      playlists: new Map(p.map((playlist) => [playlist.id, PlaylistOnly.parse(playlist)])),
    };
  }

  /** Like render, but a failure renders nothing (every resource null): never leak, never fail a read. */
  async renderOrNothing(viewer: { userId: number; role?: Role }, trackIds: readonly number[], playlistIds: readonly number[]): Promise<RenderedResources> {
    try {
      return await this.render(viewer, trackIds, playlistIds);
    } catch (err) {
      if (err instanceof CatalogUnavailableError) return emptyResources();
      throw err;
    }
  }
}
