import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { MEDIA_SEGMENT_NAME, type MediaRendition } from '@msp/contracts';

/** What a signed URL grants: the whole track (progressive, HLS) or only its preview (R3). */
export type MediaScope = 'full' | 'preview';

/**
 * On whose behalf the URL was minted, re-checked on every byte request (R2/R3 on every byte
 * path): `o` owner or admin (any state of access), `v` a viewer of a public track (the track must
 * still be public, FINISHED and its access must allow the scope), `t` a secret-token holder (bound
 * to the token: TRK-12 kills the URLs minted with the old one).
 */
export type MediaGrant = 'o' | 'v' | 't';

export const RENDITIONS = {
  'full.m4a': 'full',
  'preview.m4a': 'preview',
  /** The HLS master playlist (a single media playlist for tracks processed before the ladder). */
  'index.m3u8': 'full',
  /** The media playlists of the adaptive ladder (docs/sound.md), named by the master playlist. */
  'aac_64k.m3u8': 'full',
  'aac_128k.m3u8': 'full',
  'aac_256k.m3u8': 'full',
} as const satisfies Record<MediaRendition, MediaScope>;

/** The playlists served by rewriting their URI lines into signed URLs. */
export const PLAYLISTS: ReadonlySet<Rendition> = new Set(['index.m3u8', 'aac_64k.m3u8', 'aac_128k.m3u8', 'aac_256k.m3u8']);

/** A segment file name: the ladder's `aac_<n>k_NNNN.ts`, or `seg_NNNN.ts` of a single-playlist track (MEDIA-2's contract). */
export const SEGMENT_NAME = MEDIA_SEGMENT_NAME;
export type Rendition = keyof typeof RENDITIONS;

export interface SignedQuery {
  e: number;
  g: MediaGrant;
  s: string;
}

/** Signatures kept per expiry step (bounded; a hot track's page is signed once a step, not per request). */
const SIGNATURE_CACHE_MAX = 50_000;

/**
 * HMAC-SHA256 over track, scope, grant, expiry (and the secret token for `t`): one track's signature
 * never opens another. Expiries are rounded up to a step (a tenth of the TTL, at most 60 s), so the
 * URLs minted within one step are the same and their signatures are computed once per step: a URL
 * lives between the TTL and the TTL plus one step.
 */
export class MediaSigner {
  /** The secret imported once (not on every signature) and the URL base without its trailing slashes. */
  private readonly key: KeyObject;
  private readonly baseUrl: string;
  private readonly stepSeconds: number;
  private cache = new Map<string, string>();
  private cacheExpires = 0;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    publicBaseUrl: string,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.baseUrl = publicBaseUrl.replace(/\/+$/, '');
    this.stepSeconds = Math.max(1, Math.min(60, Math.floor(ttlSeconds / 10)));
  }

  expiry(now = Date.now()): number {
    const step = this.stepSeconds;
    return Math.ceil((Math.floor(now / 1000) + this.ttlSeconds) / step) * step;
  }

  private mac(trackId: number, scope: MediaScope, grant: MediaGrant, expires: number, binding: string): string {
    return createHmac('sha256', this.key).update(`${trackId}\n${scope}\n${grant}\n${expires}\n${binding}`).digest('base64url');
  }

  private signed(trackId: number, scope: MediaScope, grant: MediaGrant, expires: number, bound: string): string {
    return `e=${expires}&g=${grant}&s=${this.mac(trackId, scope, grant, expires, bound)}`;
  }

  query(trackId: number, scope: MediaScope, grant: MediaGrant, expires: number, binding = ''): string {
    const bound = grant === 't' ? binding : '';
    if (expires < this.cacheExpires) return this.signed(trackId, scope, grant, expires, bound); // an older URL's expiry (HLS segments)
    if (expires > this.cacheExpires) {
      // A new step: the old signatures are not minted again (their URLs stay valid until they expire).
      this.cache = new Map();
      this.cacheExpires = expires;
    }
    const key = `${trackId}\n${scope}\n${grant}\n${bound}`;
    let query = this.cache.get(key);
    if (query === undefined) {
      query = this.signed(trackId, scope, grant, expires, bound);
      if (this.cache.size >= SIGNATURE_CACHE_MAX) this.cache.clear();
      this.cache.set(key, query);
    }
    return query;
  }

  /** Absolute URL through the gateway (MEDIA-1). `query` reuses a signature of the same scope (HLS and full share one). */
  renditionUrl(trackId: number, rendition: Rendition, grant: MediaGrant, expires: number, binding = '', query?: string): string {
    return `${this.baseUrl}/api/media/tracks/${trackId}/${rendition}?${query ?? this.query(trackId, RENDITIONS[rendition], grant, expires, binding)}`;
  }

  /** Absolute URL of an HLS segment (MEDIA-2), with the playlist's expiry. */
  segmentUrl(trackId: number, segment: string, grant: MediaGrant, expires: number, binding = ''): string {
    return `${this.baseUrl}/api/media/tracks/${trackId}/segments/${encodeURIComponent(segment)}?${this.query(trackId, 'full', grant, expires, binding)}`;
  }

  verify(trackId: number, scope: MediaScope, q: SignedQuery, binding: string, now = Date.now()): boolean {
    if (q.e * 1000 < now) return false;
    const expected = Buffer.from(this.mac(trackId, scope, q.g, q.e, q.g === 't' ? binding : ''));
    const given = Buffer.from(q.s);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
