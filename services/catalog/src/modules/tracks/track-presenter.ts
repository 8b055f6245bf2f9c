import { toUserSummary, type Track, type UserSummary, type UserSummarySource } from '@msp/contracts';
import type { Caller } from '@msp/http';
import type { MediaGrant, MediaSigner } from '../media/media-signer.js';
import type { OneTrackFlags, TrackReadsRepository } from './track-reads.repository.js';
import type { ViewerFlags, ViewerFlagsRepository } from './viewer-flags.repository.js';
import { trackLoudness } from '../sound/loudness-rules.js';
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
  /**
   * No viewer flags: isLiked/isReposted/isFollowing false. Inside event transactions, and for
   * other services' internal renders (social fills the viewer's flags itself: reads between the
   * two services go one way, docs/decisions.md "Service-to-service reads").
   */
  offline?: boolean;
  /** The viewer's flags of a single row, read with it (`TrackReadsRepository.byIdForViewer`). */
  known?: OneTrackFlags;
  /** The viewer's flags of the page, read with its rows (`TrackReadsRepository.inOrderForViewer`). */
  flags?: ViewerFlags;
}

/** The viewer's flags for one page, by id. */
interface PageFlags {
  liked: ReadonlySet<number>;
  reposted: ReadonlySet<number>;
  following: ReadonlySet<number>;
}

const NO_IDS: ReadonlySet<number> = new Set();
const NO_FLAGS: PageFlags = { liked: NO_IDS, reposted: NO_IDS, following: NO_IDS };

function fromCopies(flags: ViewerFlags): PageFlags {
  return { liked: new Set(flags.liked), reposted: new Set(flags.reposted), following: new Set(flags.following) };
}

function fromOne(row: PresentableRow, known: OneTrackFlags): PageFlags {
  return {
    liked: known.isLiked ? new Set([row.id]) : NO_IDS,
    reposted: known.isReposted ? new Set([row.id]) : NO_IDS,
    following: known.isFollowing ? new Set([row.artistId]) : NO_IDS,
  };
}

/** A public asset's storage key: `public/<uuid>/<file>`. */
const ASSET_KEY = /^public\/([0-9a-f-]{36})\/([a-z0-9.-]+)$/;

/** A row the caller already read with its artist (TrackReadsRepository): no summaries query. */
export type PresentableRow = TrackRow & { artist?: UserSummarySource | null };

/** Tracks presented from one row object, per variant (see TrackPresenter's `rendered`). */
interface RenderedVariants {
  /** The media URLs' expiry step the variants were signed for. */
  expires: number;
  byVariant: Map<string, Track>;
}

/** Shared records are frozen where tests run, so code that would change one fails there, not in production. */
const FREEZE_RENDERED = process.env.NODE_ENV === 'test';

function frozen(track: Track): Track {
  Object.freeze(track.artist);
  Object.freeze(track.tags);
  if (track.loudness) Object.freeze(track.loudness);
  return Object.freeze(track);
}

/**
 * Turns track rows into Track (full) records as one caller sees them: artist summaries joined by
 * the read (or from the projection in one query), the viewer's isLiked/isReposted and the artists'
 * isFollowing from catalog's copies of social's data (`track_engagements`, `user_follows`, kept by
 * social's events) in ONE statement of primary-key lookups per page, so a track read never calls
 * social; media URLs signed for the caller's access (R3, R4). R7 hiding is decided before, in SQL,
 * from catalog's copy of the blocks.
 */
export class TrackPresenter {
  /** `<public base>/api/media/assets/`, built once. */
  private readonly assetsBase: string;

  /**
   * Track records already presented, per row object. TrackRowCache hands out one object per row
   * version (the track's row and pending plays, its artist's summary: `xmin`s), so a record made
   * from that object stays right as long as the object lives (a WeakMap: it goes with the row). What
   * else a record depends on is its variant: the grant (R3/R4; an owner also sees the secret token),
   * the viewer's three flags, and the media URLs' expiry step (a new step drops the old variants).
   * A page of 20 tracks presented afresh cost catalog about 80 µs (dates, signed URLs, 20 objects),
   * and its new URL strings, built by concatenation, about 30 µs more to serialise than flat
   * ones (2026-11-29, docs/benchmarks/discovery.md). The records are shared: callers copy, never
   * change them (frozen under tests).
   */
  private readonly rendered = new WeakMap<PresentableRow, RenderedVariants>();

  constructor(
    private readonly reads: TrackReadsRepository,
    private readonly signer: MediaSigner,
    private readonly viewerFlags: ViewerFlagsRepository,
    publicBaseUrl: string,
    /** LOUDNESS_TARGET_LUFS: the playback gain of the Track record aims at it. */
    private readonly loudnessTargetLufs = -14,
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
  mediaUrls(row: TrackRow, grant: MediaGrant, expires = this.signer.expiry()): TrackMediaUrls {
    const coverUrl = this.assetUrl(row.coverKey);
    if (row.state !== 'FINISHED' || !row.progressiveKey) return { ...NO_MEDIA_URLS, coverUrl };
    const waveformUrl = this.assetUrl(row.waveformKey);
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

  /** The viewer's flags for these rows from catalog's copies (one statement, or read with the rows). */
  private async flags(rows: readonly PresentableRow[], artistIds: number[], viewerId: number | null, options: PresentOptions): Promise<PageFlags> {
    if (viewerId === null) return NO_FLAGS;
    if (options.known && rows.length === 1) return fromOne(rows[0]!, options.known);
    if (options.flags) return fromCopies(options.flags);
    const others = artistIds.filter((id) => id !== viewerId);
    const trackIds = rows.map((r) => r.id);
    return fromCopies(await this.viewerFlags.of(viewerId, trackIds, others));
  }

  async present(rows: readonly PresentableRow[], caller: Caller | null, options: PresentOptions = {}): Promise<Track[]> {
    if (rows.length === 0) return [];
    const artistIds = [...new Set(rows.map((r) => r.artistId))];
    const viewerId = caller && !options.offline ? caller.userId : null;
    const joined = rows.every((r) => r.artist !== undefined);
    // Rows read with their artists carry the summaries; others get them in one query.
    const [summaries, flags] = await Promise.all([joined ? null : this.reads.summaries(artistIds), this.flags(rows, artistIds, viewerId, options)]);
    const byId = new Map(summaries?.map((s) => [s.userId, s]));
    const expires = this.signer.expiry();
    const out: Track[] = [];
    for (const row of rows) {
      const summary = joined ? row.artist : byId.get(row.artistId);
      const grant = this.grantFor(row, caller, options.viaToken ?? false);
      const isLiked = flags.liked.has(row.id);
      const isReposted = flags.reposted.has(row.id);
      const isFollowing = flags.following.has(row.artistId);
      // Only a record made from the row object alone is kept: its artist's summary read with it.
      if (!joined || !summary) {
        out.push(this.render(row, summary ?? null, caller, grant, expires, isLiked, isReposted, isFollowing));
        continue;
      }
      const variant = `${grant}${isLiked ? 1 : 0}${isReposted ? 1 : 0}${isFollowing ? 1 : 0}`;
      let kept = this.rendered.get(row);
      if (!kept || kept.expires !== expires) this.rendered.set(row, (kept = { expires, byVariant: new Map() }));
      let track = kept.byVariant.get(variant);
      if (!track) {
        track = this.render(row, summary, caller, grant, expires, isLiked, isReposted, isFollowing);
        kept.byVariant.set(variant, FREEZE_RENDERED ? frozen(track) : track);
      }
      out.push(track);
    }
    return out;
  }

  private render(
    row: PresentableRow,
    summary: UserSummarySource | null,
    caller: Caller | null,
    grant: MediaGrant,
    expires: number,
    isLiked: boolean,
    isReposted: boolean,
    isFollowing: boolean,
  ): Track {
    const artist = summary
      ? toUserSummary(summary, isFollowing)
      : caller && caller.userId === row.artistId
        ? callerSummary(caller)
        : unknownArtist(row.artistId);
    return toTrack(row, {
      artist,
      media: this.mediaUrls(row, grant, expires),
      isLiked,
      isReposted,
      // The owner's (and admins') grant: the same test as isOwnerOrAdmin.
      showSecretToken: grant === 'o',
      loudness: row.state === 'FINISHED' ? trackLoudness(row.loudness, this.loudnessTargetLufs) : null,
    });
  }

  async presentOne(row: PresentableRow, caller: Caller | null, options: PresentOptions = {}): Promise<Track | null> {
    const [track] = await this.present([row], caller, options);
    return track ?? null;
  }
}
