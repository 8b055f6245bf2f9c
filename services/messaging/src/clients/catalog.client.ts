import { PlaylistSchema, TrackSummarySchema, type Playlist, type TrackSummary } from '@msp/contracts';
import type { CatalogClient, CatalogViewer } from '@msp/runtime';

/** Shared resources as one reader sees them; an id missing from a map is not visible to that reader. */
export interface RenderedResources {
  tracks: Map<number, TrackSummary>;
  playlists: Map<number, Playlist>;
}

export function emptyResources(): RenderedResources {
  return { tracks: new Map(), playlists: new Map() };
}

/**
 * The tracks and playlists of a page of messages as `viewer` sees them (R2, R6, R7 in docs/rules.md):
 * one catalog call per kind (`CatalogClient`, packages/runtime). A message holds the Track summary,
 * so the full records are parsed down to its fields (zod objects drop unknown keys). Throws
 * `CatalogUnavailableError` when catalog does not answer: the caller picks its failure policy.
 */
export async function renderResources(
  catalog: Pick<CatalogClient, 'tracks' | 'playlists'>,
  viewer: CatalogViewer,
  trackIds: readonly number[],
  playlistIds: readonly number[],
): Promise<RenderedResources> {
  const [tracks, playlists] = await Promise.all([catalog.tracks(viewer, trackIds), catalog.playlists(viewer, playlistIds)]);
  return {
    tracks: new Map([...tracks].map(([id, track]) => [id, TrackSummarySchema.parse(track)])),
    playlists: new Map([...playlists].map(([id, playlist]) => [id, PlaylistSchema.parse(playlist)])),
  };
}
