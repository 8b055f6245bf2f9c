import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connectNats, createEnvelope, ensureStreamOf, TrackProcessed, TrackUploaded, type NatsConnection } from '@msp/events';
import { ObjectStorage } from '@msp/storage';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMediaProcessingConfig } from '../src/app.js';
import { resolveMediaBinaries } from '../src/media/ffmpeg.js';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { JobsRepository } from '../src/jobs/jobs.repository.js';
import { WorkerIdentity, workerKey } from '../src/jobs/worker-identity.js';

/*
 * Crash recovery of the media worker, with real worker processes: `node --import tsx src/server.ts`
 * children killed with SIGKILL (their whole process group, as a container crash: the worker and
 * its ffmpeg children, no shutdown hook runs). The ffmpeg the children run is a wrapper that holds
 * a track's ffmpeg runs while a gate file named after the track exists, so "mid-job" is exact.
 */

const execFileAsync = promisify(execFile);
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const BUCKET = 'msp-media-recovery';

let env: ServiceTestEnv;
let db: pg.Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let storage: ObjectStorage;
let workDir: string;
let gatesDir: string;
let scratchRoot: string;
let realFfmpeg: string;
let gatedFfmpeg: string;
const children: WorkerProcess[] = [];
const apps: Awaited<ReturnType<typeof buildApp>>[] = [];

interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<unknown>;
  output(): string;
}

/** The worker as deployed (`src/server.ts`), in its own process group. */
function startWorkerProcess(workerId: string, extra: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: serviceDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...env.env,
      WORKER_ID: workerId,
      JOB_POLL_MS: '200',
      SCRATCH_DIR: scratchRoot,
      FFMPEG_PATH: gatedFfmpeg,
      MEDIA_TEST_GATES: gatesDir,
      LOG_LEVEL: 'info',
      LOG_BUFFER_BYTES: '0',
      ...extra,
    },
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const worker = { child, exited, output: () => output };
  children.push(worker);
  return worker;
}

/** When the worker process logged that it holds its identity (its runner starts right after). */
function bootTime(output: string): number {
  for (const line of output.split('\n')) {
    if (!line.includes('worker identity taken')) continue;
    return (JSON.parse(line) as { time: number }).time;
  }
  throw new Error(`the worker did not log its identity:\n${output}`);
}

async function killHard(worker: WorkerProcess): Promise<void> {
  process.kill(-worker.child.pid!, 'SIGKILL');
  await worker.exited;
}

interface JobRow {
  state: string;
  runs: number;
  progress: number;
  lease_owner: string | null;
  lease_generation: string | null;
  lease_until: Date | null;
  updated_at: Date;
  public_id: string;
}

async function jobOf(uploadId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT state, runs, progress, lease_owner, lease_generation::text, lease_until, updated_at, public_id::text FROM jobs WHERE upload_id = $1::uuid`,
    [uploadId],
  );
  return rows[0];
}

async function eventsOf(uploadId: string): Promise<{ type: string; progress: number | null }[]> {
  const { rows } = await db.query<{ type: string; progress: number | null }>(
    `SELECT type, (payload->'data'->>'progress')::int AS progress FROM outbox_event WHERE payload->'data'->>'uploadId' = $1 ORDER BY seq`,
    [uploadId],
  );
  return rows;
}

/** Stores a generated sine WAV and publishes its upload event, as catalog does; its ffmpeg runs are held while `gated`. */
async function upload(trackId: number, seconds: number, gated: boolean): Promise<{ trackId: number; uploadId: string }> {
  const uploadId = randomUUID();
  const file = path.join(workDir, `track-${trackId}.wav`);
  await execFileAsync(realFfmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`, '-y', file]);
  const size = (await stat(file)).size;
  const originalKey = `originals/${trackId}/${uploadId}`;
  await storage.put(originalKey, createReadStream(file), 'audio/wav', size);
  if (gated) await writeFile(path.join(gatesDir, String(trackId)), '');
  const envelope = createEnvelope(TrackUploaded, {
    trackId,
    uploadId,
    artistId: 1,
    bucket: BUCKET,
    originalKey,
    format: 'wav',
    sizeBytes: size,
    coverKey: null,
    attempt: 1,
  });
  await js.publish(TrackUploaded.type, JSON.stringify(envelope), { msgID: envelope.id });
  return { trackId, uploadId };
}

const openGate = (trackId: number) => rm(path.join(gatesDir, String(trackId)), { force: true });

/** Waits until the job runs under `owner` and is held at its transcode (progress 40). */
function heldRunning(uploadId: string, owner: string, timeoutMs = 45_000) {
  return waitFor(
    async () => {
      const job = await jobOf(uploadId);
      return job?.state === 'RUNNING' && job.lease_owner === owner && job.progress >= 40 ? job : undefined;
    },
    { timeoutMs, intervalMs: 50, message: `job ${uploadId} never ran under ${owner}` },
  );
}

function succeeded(uploadId: string, timeoutMs: number) {
  return waitFor(
    async () => {
      const job = await jobOf(uploadId);
      return job?.state === 'SUCCEEDED' ? job : undefined;
    },
    { timeoutMs, intervalMs: 50, message: `job ${uploadId} did not succeed` },
  );
}

/**
 * Exactly one run's output: every object of the upload is one the completion event names (the
 * playlist's segments included), and there is one completion event and one progress event per step.
 */
async function expectOneRunsOutput(trackId: number, uploadId: string, publicId: string): Promise<void> {
  const events = await eventsOf(uploadId);
  const processed = events.filter((e) => e.type === TrackProcessed.type);
  expect(processed).toHaveLength(1);
  const progress = events.filter((e) => e.progress !== null).map((e) => e.progress);
  expect(progress).toEqual([...new Set(progress)].sort((a, b) => a! - b!)); // each step once, in order

  const base = `tracks/${trackId}/${uploadId}-1/`;
  const stored = [...(await storage.list(base)), ...(await storage.list(`public/${publicId}/`))].sort();
  const read = async (key: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  // The master playlist names the ladder's media playlists, which name their segments.
  const variants = (await read(`${base}hls/index.m3u8`)).split('\n').filter((line) => line.endsWith('.m3u8'));
  expect(variants).toHaveLength(3);
  const segments = (await Promise.all(variants.map((v) => read(`${base}hls/${v}`)))).flatMap((p) => p.split('\n').filter((line) => line.endsWith('.ts')));
  expect(segments.length).toBeGreaterThan(0);
  expect(stored).toEqual(
    [
      `${base}full.m4a`,
      `${base}preview.m4a`,
      `${base}hls/index.m3u8`,
      ...variants.map((v) => `${base}hls/${v}`),
      ...segments.map((s) => `${base}hls/${s}`),
      `public/${publicId}/waveform.json`,
      `public/${publicId}/audiowaveform.json`,
    ].sort(),
  );
}

/** Completion events that reached the broker (the relay publishes each outbox row once). */
async function processedOnBroker(): Promise<number> {
  const info = await jsm.streams.info('MEDIA_PROCESSING', { subjects_filter: TrackProcessed.type });
  return info.state.subjects?.[TrackProcessed.type] ?? 0;
}

beforeAll(async () => {
  env = await startServiceTestEnv('media_recovery', migrations);
  db = new pg.Pool({ connectionString: env.env.DATABASE_URL, max: 2 });
  nc = await connectNats(env.env.NATS_URL!, 'media-recovery-test');
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureStreamOf(jsm, 'catalog');
  storage = new ObjectStorage({
    endpoint: env.env.S3_ENDPOINT!,
    region: 'us-east-1',
    accessKey: env.env.S3_ACCESS_KEY!,
    secretKey: env.env.S3_SECRET_KEY!,
    bucket: BUCKET,
  });
  await storage.ensureBucket();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'media-recovery-test-'));
  gatesDir = path.join(workDir, 'gates');
  scratchRoot = path.join(workDir, 'scratch');
  await mkdir(gatesDir);
  await mkdir(scratchRoot);
  realFfmpeg = (await resolveMediaBinaries({})).ffmpeg.path;
  gatedFfmpeg = path.join(workDir, 'ffmpeg');
  await writeFile(
    gatedFfmpeg,
    `#!/bin/sh
# Holds every run for a track whose gate file exists (its scratch folder is msp-job-<track>-…).
if [ -n "$MEDIA_TEST_GATES" ]; then
  while :; do
    held=
    for gate in "$MEDIA_TEST_GATES"/*; do
      [ -e "$gate" ] || continue
      case "$*" in *"/msp-job-$(basename "$gate")-"*) held=1 ;; esac
    done
    [ -z "$held" ] && break
    sleep 0.05
  done
fi
exec '${realFfmpeg}' "$@"
`,
  );
  await chmod(gatedFfmpeg, 0o755);
}, 60_000);

afterEach(async () => {
  // A failed test must not leave a worker that claims the next test's jobs (cleanup errors change nothing).
  for (const worker of children.splice(0))
    if (worker.child.exitCode === null && worker.child.signalCode === null) await killHard(worker).catch(() => undefined); // already gone
  for (const app of apps.splice(0)) await app.close().catch(() => undefined); // already closed
});

afterAll(async () => {
  await nc?.close();
  await db?.end();
  await env?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('media recovery: a worker killed mid-job and restarted takes its job back at once', () => {
  it('completes the job within 20 s of the worker being up again although the lease has 60 s to run, with one run’s output', async () => {
    // A 60-s lease, the figure of the old default: only the worker identity can explain a quick resumption.
    const config = { JOB_LEASE_MS: '60000', JOB_HEARTBEAT_MS: '5000' };
    const first = startWorkerProcess('media-worker-0', config);
    const { trackId, uploadId } = await upload(1, 5, true);
    const before = await heldRunning(uploadId, 'media-worker-0').catch((err: unknown) => {
      throw new Error(`${String(err)}\nworker output:\n${first.output()}`);
    });
    const scratch = path.join(scratchRoot, `msp-media-${workerKey('media-worker-0')}`);
    expect(await readdir(scratch)).toHaveLength(1); // the job's scratch folder, left behind by the kill

    await killHard(first);
    await openGate(trackId);
    const killed = await jobOf(uploadId);
    expect(killed).toMatchObject({ state: 'RUNNING', runs: 1, lease_owner: 'media-worker-0', lease_generation: before.lease_generation });

    const restartedAt = Date.now();
    const second = startWorkerProcess('media-worker-0', config);
    const withOutput = (err: unknown) => {
      throw new Error(`${String(err)}\nworker output:\n${second.output()}`);
    };
    const resumed = await waitFor(
      async () => {
        const job = await jobOf(uploadId);
        return job && job.lease_generation !== before.lease_generation ? Date.now() : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, message: 'the restarted worker did not take its job back' },
    ).catch(withOutput);
    const done = await succeeded(uploadId, 30_000).catch(withOutput);
    const doneAt = Date.now();
    const bootedAt = bootTime(second.output());
    console.info(
      `media recovery: restart → process up ${bootedAt - restartedAt} ms → job taken back ${resumed - bootedAt} ms later → succeeded ${doneAt - resumed} ms later; ` +
        `restart → done ${doneAt - restartedAt} ms (the 60-s lease still had ${killed!.lease_until!.getTime() - restartedAt} ms to run)`,
    );
    // Taken back as the restarted worker comes up, not at the lease's expiry (still over 20 s away when
    // the job is done), and done within 20 s of the worker being up again. The process's own start
    // (loading its code through tsx) is reported, not asserted: on a loaded 2-core machine it alone
    // can take longer than that.
    expect(resumed - bootedAt).toBeLessThan(5000);
    expect(doneAt - bootedAt).toBeLessThan(20_000);
    expect(killed!.lease_until!.getTime() - doneAt).toBeGreaterThan(20_000);
    expect(done).toMatchObject({ runs: 2, lease_owner: 'media-worker-0', progress: 100 });
    expect(done.lease_generation).not.toBe(before.lease_generation);

    await expectOneRunsOutput(trackId, uploadId, done.public_id);
    await waitFor(async () => (await processedOnBroker()) === 1, { timeoutMs: 5000, message: 'the completion event did not reach the broker once' });
    expect(await readdir(scratch)).toEqual([]); // the killed run's files were removed at the restart
    await killHard(second);
  }, 120_000);
});

describe('media recovery: heartbeat and takeover between workers', () => {
  it('never takes over the job of a live worker, and takes over a dead worker’s job once its short lease expires', async () => {
    const lease = { JOB_LEASE_MS: '1500', JOB_HEARTBEAT_MS: '500' };
    const alive = startWorkerProcess('media-worker-a', lease);
    const kept = await upload(2, 4, true);
    const orphaned = await upload(3, 4, true);
    await Promise.all([heldRunning(kept.uploadId, 'media-worker-a'), heldRunning(orphaned.uploadId, 'media-worker-a')]).catch((err: unknown) => {
      throw new Error(`${String(err)}\nworker output:\n${alive.output()}`);
    });

    // Another instance, polling every 200 ms, with the same 1.5-s lease.
    const other = await buildApp(
      loadMediaProcessingConfig({ ...env.env, ...lease, WORKER_ID: 'media-worker-b', JOB_POLL_MS: '200', SCRATCH_DIR: scratchRoot }),
      { logger: false },
    );
    apps.push(other);
    await other.ready();
    const otherStarted = Date.now();

    // Three whole leases while both workers live: the heartbeat keeps both jobs with their worker.
    await waitFor(
      async () => {
        const jobs = await Promise.all([jobOf(kept.uploadId), jobOf(orphaned.uploadId)]);
        for (const job of jobs) expect(job).toMatchObject({ state: 'RUNNING', runs: 1, lease_owner: 'media-worker-a' });
        return jobs.every((job) => job!.lease_until!.getTime() > otherStarted + 4500) || undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'the leases were not renewed' },
    );
    expect(other.runner.running).toBe(0);
    await openGate(kept.trackId);
    const finished = await succeeded(kept.uploadId, 20_000);
    expect(finished).toMatchObject({ runs: 1, lease_owner: 'media-worker-a' });
    await expectOneRunsOutput(kept.trackId, kept.uploadId, finished.public_id);

    // The worker dies with the other job held: no heartbeat any more.
    const held = await jobOf(orphaned.uploadId);
    await killHard(alive);
    const killedAt = Date.now();
    await openGate(orphaned.trackId);
    const taken = await waitFor(
      async () => {
        const job = await jobOf(orphaned.uploadId);
        return job?.lease_owner === 'media-worker-b' ? job : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, message: 'the dead worker’s job was not taken over' },
    );
    const takeoverMs = Date.now() - killedAt;
    console.info(`media recovery: dead worker's job taken over ${takeoverMs} ms after the kill (lease 1500 ms, heartbeat 500 ms)`);
    // Not before the dead worker's last lease ran out (it was at least as late as when read before
    // the kill), and within about a poll of it.
    expect(taken.updated_at.getTime()).toBeGreaterThanOrEqual(held!.lease_until!.getTime());
    expect(takeoverMs).toBeLessThan(1500 + 2000);
    const done = await succeeded(orphaned.uploadId, 20_000);
    expect(done).toMatchObject({ runs: 2, lease_owner: 'media-worker-b' });
    await expectOneRunsOutput(orphaned.trackId, orphaned.uploadId, done.public_id);
    await waitFor(async () => (await processedOnBroker()) === 3, { timeoutMs: 5000, message: 'completion events did not reach the broker once each' });
  }, 120_000);
});

describe('media recovery: worker identity', () => {
  const quiet = { info: () => undefined, warn: () => undefined };

  it('is held by one live process at a time; a second one runs under a fallback identity', async () => {
    const databaseUrl = env.env.DATABASE_URL!;
    const first = await WorkerIdentity.acquire({ databaseUrl, workerId: 'media-worker-x', logger: quiet });
    const second = await WorkerIdentity.acquire({ databaseUrl, workerId: 'media-worker-x', logger: quiet });
    try {
      expect(first).toMatchObject({ id: 'media-worker-x', owned: true });
      expect(second).toMatchObject({ id: `media-worker-x~${second.generation.slice(0, 8)}`, owned: false });
      await first.close();
      const next = await WorkerIdentity.acquire({ databaseUrl, workerId: 'media-worker-x', logger: quiet });
      expect(next).toMatchObject({ id: 'media-worker-x', owned: true });
      expect(next.generation).not.toBe(first.generation);
      await next.close();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('takes back a running job of its identity’s earlier generation only while it holds the identity', async () => {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: env.env.DATABASE_URL! }) });
    const jobs = new JobsRepository(prisma);
    try {
      const uploadId = randomUUID();
      const deadToken = randomUUID();
      await db.query(
        `INSERT INTO jobs (id, public_id, track_id, upload_id, state, runs, lease_until, lease_owner, lease_generation, lease_token, updated_at)
         VALUES (gen_random_uuid(), gen_random_uuid(), 90, $1::uuid, 'RUNNING', 1, now() + interval '1 hour', 'media-worker-y', gen_random_uuid(), $2::uuid, now())`,
        [uploadId, deadToken],
      );
      const generation = randomUUID();
      expect(await jobs.claim(15_000, { id: 'media-worker-z', generation, reclaim: true })).toBeNull(); // another identity: its lease holds
      expect(await jobs.claim(15_000, { id: 'media-worker-y', generation, reclaim: false })).toBeNull(); // a fallback process takes nothing back
      const claimed = await jobs.claim(15_000, { id: 'media-worker-y', generation, reclaim: true });
      expect(claimed).toMatchObject({ upload_id: uploadId, runs: 2 });
      expect(await jobOf(uploadId)).toMatchObject({ state: 'RUNNING', lease_owner: 'media-worker-y', lease_generation: generation });
      // The earlier generation's token no longer counts: a late report of the dead run changes nothing.
      expect(await jobs.renewLeases([deadToken, claimed!.lease_token], 15_000)).toEqual(new Set([claimed!.lease_token]));
      await jobs.succeed({ id: claimed!.id, track_id: 90, upload_id: uploadId, attempt: 1, lease_token: deadToken }, {} as never);
      expect(await eventsOf(uploadId)).toEqual([]);
      expect(await jobs.claim(15_000, { id: 'media-worker-y', generation, reclaim: true })).toBeNull(); // its own current run stays
    } finally {
      await prisma.$disconnect();
    }
  });
});
