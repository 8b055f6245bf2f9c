import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

const MIB = 1024 * 1024;
export const DEV_SIGNING_SECRET = 'development-media-signing-secret';
export const DEV_INSIGHTS_SALT = 'development-insights-client-salt';

export const configShape = {
  ...serviceEnvShape('catalog'),
  ...serviceUrlsShape,
  /** R11: audio size limit of TRK-1/TRK-2 (the gateway's own limit is this + 11 MB). */
  AUDIO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(200 * MIB),
  /** Longest audio accepted (3 h): judged by ffprobe before 201, so a tiny file cannot buy hours of CPU. */
  AUDIO_MAX_DURATION_SECONDS: z.coerce.number().int().min(1).max(86_400).default(10_800),
  /** R11: cover image limit. */
  COVER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * MIB),
  /** R12: tracks a FREE account may own at once. */
  FREE_TRACK_QUOTA: z.coerce.number().int().min(0).default(10),
  /** TRK-1 waits this long for FINISHED before answering 202. */
  UPLOAD_WAIT_MS: z.coerce.number().int().min(0).default(60_000),
  /** R4: lifetime of signed media URLs. */
  MEDIA_URL_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(3600),
  /** Playback loudness players are brought to (docs/sound.md): the Track record's `loudness.gainDb` aims at it. */
  LOUDNESS_TARGET_LUFS: z.coerce.number().min(-40).max(-5).default(-14),
  /** HMAC key of signed media URLs; every catalog replica must share it. */
  MEDIA_SIGNING_SECRET: z.string().min(16).default(DEV_SIGNING_SECRET),
  /** The probe of a stored upload by media-processing (R11) may read a few MB over the network. */
  PROBE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  /** MOD-12 totalStorageCapacityBytes: what the object store is provisioned with (default 1 TiB). */
  STORAGE_CAPACITY_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(1024 ** 4),
  /** R9: plays of one listener and track within this window count once. */
  PLAY_DEDUP_SECONDS: z.coerce.number().int().min(1).default(30),
  /** docs/insights.md: a listener's plays beyond this many in the trailing minute are logged but not counted. */
  PLAY_FLOOD_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** docs/insights.md: plays of a listener past this many distinct tracks in the trailing hour are logged but not counted. */
  PLAY_SWEEP_TRACKS_PER_HOUR: z.coerce.number().int().min(1).default(500),
  /** Salt of the anonymous listener's daily client hash in the play log (the raw address is never stored). */
  INSIGHTS_CLIENT_SALT: z.string().min(16).default(DEV_INSIGHTS_SALT),
  /**
   * docs/insights.md: a track's pending play counts are folded into its row (search popularity,
   * trending score) once they are this old, or hold 1,000 plays; reads count them either way.
   */
  PLAY_FOLD_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  /** DSC-3: the candidates of one- and two-letter search prefixes are recomputed when older than this (ms). */
  SEARCH_PREFIX_REFRESH_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
} as const;

export const requiredEnv = [
  ...SERVICE_REQUIRED_IN_PRODUCTION,
  // Signed media URLs must verify on every replica: a per-process default would break them.
  'MEDIA_SIGNING_SECRET',
] as const;

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;

export function loadCatalogConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}
