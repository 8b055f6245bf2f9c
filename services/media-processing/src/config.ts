import { z } from 'zod';
import { ConfigError, loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('media-processing'),
  ...serviceUrlsShape,
  /** Binaries to run; unset means the system's when installed, else the npm-installed one. */
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  /** Processing jobs run at the same time (each one runs ffmpeg). */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /**
   * A claim holds its job this long unless renewed: another worker takes the job of a worker that
   * stopped renewing (died) after it. A restarted worker takes back its own jobs without waiting.
   */
  JOB_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
  /**
   * The heartbeat renewing the leases of the running jobs: at most a third of JOB_LEASE_MS (checked
   * at boot); unset, 5000 or a third of the lease when that is shorter.
   */
  JOB_HEARTBEAT_MS: z.coerce.number().int().min(100).max(1_200_000).optional(),
  /**
   * This worker's identity, stable across restarts (the host name when unset: the pod name in
   * Kubernetes). A process that boots with the identity of a dead one takes its running jobs back
   * at once. Two live processes must not share it (the second runs under a fallback identity).
   */
  WORKER_ID: z.string().trim().min(1).max(200).optional(),
  /** Runs of one job (crashes and transient failures) before it ends FAILED. */
  JOB_MAX_RUNS: z.coerce.number().int().min(1).max(20).default(3),
  /** How often idle runners look for due jobs (new jobs also wake them at once). */
  JOB_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Longest audio transcoded (3 h by default); catalog refuses longer uploads before 201. */
  AUDIO_MAX_DURATION_SECONDS: z.coerce.number().int().min(1).max(86_400).default(10_800),
  /** Wall time of one processing run; past it the job ends FAILED (a 3-h track takes ~8 min here). */
  JOB_MAX_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(6 * 3_600_000)
    .default(30 * 60_000),
  /** Scratch folder for job files; the system temp folder when unset. Cleaned after every run. */
  SCRATCH_DIR: z.string().min(1).optional(),
} as const;

export const requiredEnv = SERVICE_REQUIRED_IN_PRODUCTION;

export type MediaProcessingConfig = ReturnType<typeof loadMediaProcessingConfig>;

export function loadMediaProcessingConfig(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(configShape, { env, requiredInProduction: requiredEnv });
  // Two renewals may fail in a row (a database blip) before a live worker's job could be taken over.
  const heartbeatMs = config.JOB_HEARTBEAT_MS ?? Math.min(5000, Math.floor(config.JOB_LEASE_MS / 3));
  if (heartbeatMs * 3 > config.JOB_LEASE_MS) {
    throw new ConfigError([`JOB_HEARTBEAT_MS: must be at most a third of JOB_LEASE_MS (${config.JOB_LEASE_MS}), got ${heartbeatMs}`]);
  }
  return { ...config, JOB_HEARTBEAT_MS: heartbeatMs };
}
