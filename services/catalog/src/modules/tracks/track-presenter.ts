import { toUserSummary, type Track, type UserSummary, type UserSummarySource } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { emptyViewerContext, type SocialClient, type ViewerContext } from '../../clients/social.client.js';
import type { MediaGrant, MediaSigner } from '../media/media-signer.js';
import type { TrackReadsRepository } from './track-reads.repository.js';
import { isOwnerOrAdmin, renditionsFor } from './track-rules.js';
import { NO_MEDIA_URLS, toTrack, type TrackMediaUrls, type TrackRow } from './track.mapper.js';

/** The caller's own summary when catalog's projection has not caught up with identity yet. */
export function callerSummary(caller: Caller): UserSummary {
  const username = caller.username ?? `user-${caller.userId}`;
  return { id: caller.userId, username, displayName: username, avatarUrl: null, tier: caller.tier, isFollowing: false, followerCount: 0, trackCount: 0 };
}

function unknownArtist(userId: number): UserSummary {
  const username = `user-${userId}`;
  return { id: userId, username, displayName: username, avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 };
}

export { isOwnerOrAdmin };

export interface PresentOptions {
  /** The caller reached the track through its secret token (R5). */
  viaToken?: boolean;
  /** Keep tracks a block hides (the owner's own lists): false by default. */
  keepBlocked?: boolean;
  /**
   * No call to social: isLiked/isReposted/isFollowing false. Inside event transactions, and for
   * other services' internal renders (social fills the viewer's flags itself: reads between the
   * two services go one way, ARCHITECTURE.md "Service-to-service reads").
   */
  offline?: boolean;
  /** What social already answered for this page (a mixed page asks once for all its kinds). */
  context?: ViewerContext;
}

/** A public asset's storage key: `public/<uuid>/<file>`. */
const ASSET_KEY = /^public\/([0-9a-f-]{36})\/([a-z0-9.-]+)$/;

/** A row the caller already read with its artist (TrackReadsRepository): no summaries query. */
export type PresentableRow = TrackRow & { artist?: UserSummarySource | null };

/**
 * Turns track rows into Track (full) records as one caller sees them: artist summaries joined by
 * the read (or from the projection in one query), isFollowing and isLiked/isReposted from social
 * (ONE batched call per page, `/internal/engagement`), media URLs signed for the caller's access
 * (R3, R4). R7 hiding is decided before, in SQL, from catalog's copy of the blocks, so it never
 * depends on social answering; a block social reports that the copy has not caught up with yet
 * also drops the track here.
 */
export class TrackPresenter {
  /** `<public base>/api/media/assets/`, built once. */
  private readonly assetsBase: string;

  constructor(
    private readonly reads: TrackReadsRepository,
    private readonly signer: MediaSigner,
    private readonly social: SocialClient,
    publicBaseUrl: string,
  ) {
    this.assetsBase = `${publicBaseUrl.replace(/\/+$/, '')}/api/media/assets/`;
  }

  /** Unsigned, cacheable, unguessable URL of a public asset (`public/<id>/<file>`, MEDIA-3). */
  assetUrl(key: string | null): string | null {
    if (!key) return null;
    const match = ASSET_KEY.exec(key);
    if (!match) return null;
    return `${this.assetsBase}${match[1]}/${match[2]}`;
  }

  grantFor(row: { artistId: number }, caller: Caller | null, viaToken: boolean): MediaGrant {
    if (isOwnerOrAdmin(row, caller)) return 'o';
    return viaToken ? 't' : 'v';
  }

  /** R3/R4: the artist (and admins) always get full URLs; others by access level; nothing until FINISHED. */
  mediaUrls(row: TrackRow, grant: MediaGrant): TrackMediaUrls {
    const coverUrl = this.assetUrl(row.coverKey);
    if (row.state !== 'FINISHED' || !row.progressiveKey) return { ...NO_MEDIA_URLS, coverUrl };
    const waveformUrl = this.assetUrl(row.waveformKey);
    const expires = this.signer.expiry();
    const binding = row.secretToken;
    const { full, preview } = renditionsFor(row, grant);
    // The stream and the HLS playlist have the same scope: one signature for both.
    const fullQuery = full ? this.signer.query(row.id, 'full', grant, expires, binding) : null;
    return {
      trackUrl: fullQuery ? this.signer.renditionUrl(row.id, 'full.m4a', grant, expires, binding, fullQuery) : null,
      hlsUrl: fullQuery && row.hlsPlaylistKey ? this.signer.renditionUrl(row.id, 'index.m3u8', grant, expires, binding, fullQuery) : null,
      trackPreviewUrl: preview && row.previewKey ? this.signer.renditionUrl(row.id, 'preview.m4a', grant, expires, binding) : null,
      coverUrl,
      waveformUrl,
    };
  }

  async present(rows: readonly PresentableRow[], caller: Caller | null, options: PresentOptions = {}): Promise<Track[]> {
    if (rows.length === 0) return [];
    const artistIds = [...new Set(rows.map((r) => r.artistId))];
    const online = caller && !options.offline ? caller : null;
    const joined = rows.every((r) => r.artist !== undefined);
    const [summaries, social] = await Promise.all([
      joined ? rows.flatMap((r) => (r.artist ? [r.artist] : [])) : this.reads.summaries(artistIds),
      // One call per page: artists' relationships (isFollowing, R7) and the viewer's flags.
      options.context
        ? options.context
        : online
          ? this.social.viewerContext(online.userId, { userIds: artistIds, trackIds: rows.map((r) => r.id) })
          : emptyViewerContext(),
    ]);
    const relationships = social.relationships;
    const engagement = social.tracks;
    const byId = new Map(summaries.map((s) => [s.userId, s]));
    const out: Track[] = [];
    for (const row of rows) {
      const rel = relationships.get(row.artistId);
      const admin = caller?.role === 'ADMIN';
      if (!options.keepBlocked && !admin && rel && (rel.hasBlockedViewer || rel.isBlocked)) continue;
      const summary = byId.get(row.artistId);
      const artist = summary
        ? toUserSummary(summary, rel?.isFollowing ?? false)
        : caller && caller.userId === row.artistId
          ? callerSummary(caller)
          : unknownArtist(row.artistId);
      const grant = this.grantFor(row, caller, options.viaToken ?? false);
      const eng = engagement.get(row.id);
      out.push(
        toTrack(row, {
          artist,
          media: this.mediaUrls(row, grant),
          isLiked: eng?.isLiked ?? false,
          isReposted: eng?.isReposted ?? false,
          showSecretToken: isOwnerOrAdmin(row, caller),
        }),
      );
    }
    return out;
  }

  async presentOne(row: PresentableRow, caller: Caller | null, options: PresentOptions = {}): Promise<Track | null> {
    const [track] = await this.present([row], caller, options);
    return track ?? null;
  }
}
