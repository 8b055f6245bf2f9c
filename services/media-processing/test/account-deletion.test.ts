import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserDeleted } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMediaProcessingConfig } from '../src/app.js';
import { JobsRepository } from '../src/jobs/jobs.repository.js';
import { deleteUserFromMedia } from '../src/deletion/account-deletion.consumer.js';
import { MediaAccountDeletionRepository } from '../src/deletion/account-deletion.repository.js';

/*
 * Account deletion in media-processing (docs/account-control.md): identity's UserDeleted removes
 * the user's jobs, their tracks' fingerprints and every object the jobs read or wrote.
 */
const execFileAsync = promisify(execFile);
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let workDir: string;

const DOOMED = 3101;
const OTHER = 3102;

/** One upload of `artistId` through the worker, run to SUCCEEDED: the original, renditions, waveform and fingerprint exist. */
async function processed(trackId: number, artistId: number, file: string): Promise<{ originalKey: string; publicId: string }> {
  const uploadId = randomUUID();
  const originalKey = `uploads/${uploadId}/original`;
  await app.infra.storage.put(originalKey, await readFile(file), 'application/octet-stream');
  const jobs = new JobsRepository(app.infra.prisma);
  await app.infra.prisma.$transaction((tx) =>
    jobs.enqueue(tx, { trackId, uploadId, attempt: 1, artistId, bucket: app.infra.storage.bucket, originalKey, format: 'wav', sizeBytes: 1, coverKey: null }),
  );
  app.runner.wake();
  const job = await waitFor(
    async () => {
      const [row] = await app.infra.prisma.$queryRawUnsafe<Array<{ state: string; last_error: string | null; public_id: string }>>(
        `SELECT state::text, last_error, public_id::text FROM jobs WHERE upload_id = $1::uuid`,
        uploadId,
      );
      if (row?.state === 'FAILED') throw new Error(`job failed: ${row.last_error}`);
      return row?.state === 'SUCCEEDED' ? row : undefined;
    },
    { timeoutMs: 55_000, intervalMs: 100 },
  );
  return { originalKey, publicId: job.public_id };
}

const count = async (sql: string, ...params: unknown[]) => (await app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(sql, ...params))[0]!.n;

beforeAll(async () => {
  env = await startServiceTestEnv('media_account_deletion', migrations);
  app = await buildApp(loadMediaProcessingConfig({ ...env.env, JOB_POLL_MS: '200' }), { logger: false });
  await app.ready();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'media-deletion-test-'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ACC-5 identity.user.deleted.v1 in media-processing', () => {
  it("removes the user's jobs, fingerprints and objects; another artist's stay", { timeout: 120_000 }, async () => {
    const file = path.join(workDir, 'tone.wav');
    await execFileAsync(app.media.ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=12', '-y', file]);
    const mine = await processed(501, DOOMED, file);
    const theirs = await processed(502, OTHER, file);
    const objectsOf = async (trackId: number, job: { originalKey: string; publicId: string }) => [
      ...(await app.infra.storage.list(`tracks/${trackId}/`)),
      ...(await app.infra.storage.list(`public/${job.publicId}/`)),
      ...((await app.infra.storage.stat(job.originalKey)) ? [job.originalKey] : []),
    ];
    expect((await objectsOf(501, mine)).length).toBeGreaterThan(3);
    expect(await count(`SELECT count(*)::int AS n FROM track_fingerprint WHERE track_id = 501`)).toBe(1);

    const envelope = createEnvelope(UserDeleted, { userId: DOOMED });
    await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
    await waitFor(async () => (await count(`SELECT count(*)::int AS n FROM processed_event WHERE event_id = $1::uuid`, envelope.id)) === 1, {
      message: 'deletion handled',
      timeoutMs: 20_000,
    });

    expect(await count(`SELECT count(*)::int AS n FROM jobs WHERE artist_id = $1`, DOOMED)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM track_fingerprint WHERE track_id = 501`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM fingerprint_hash WHERE track_id = 501`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM fingerprint_match WHERE track_id = 501`)).toBe(0);
    expect(await objectsOf(501, mine)).toEqual([]);
    // The other artist's upload (the same audio: its match against 501 is its own record) is untouched.
    expect(await count(`SELECT count(*)::int AS n FROM jobs WHERE artist_id = $1`, OTHER)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM track_fingerprint WHERE track_id = 502`)).toBe(1);
    expect((await objectsOf(502, theirs)).length).toBeGreaterThan(3);
  });

  it('removes the objects of a job that was running once more after its run had time to stop, and a rerun changes nothing', async () => {
    const uploadId = randomUUID();
    const publicId = randomUUID();
    await app.infra.prisma.$executeRawUnsafe(
      `INSERT INTO jobs (id, track_id, upload_id, artist_id, bucket, original_key, format, public_id, state, lease_until, updated_at)
       VALUES ($1::uuid, 601, $2::uuid, $3, '', 'uploads/x/original', 'wav', $4::uuid, 'RUNNING', now() + interval '1 minute', now())`,
      randomUUID(),
      uploadId,
      DOOMED,
      publicId,
    );
    const listed: string[] = [];
    const storage = {
      list: async (prefix: string) => {
        listed.push(prefix);
        return [];
      },
      remove: async () => undefined,
    };
    const deps = {
      repo: new MediaAccountDeletionRepository(app.infra.prisma),
      storageFor: () => storage,
      settleMs: 10,
      logger: { info: () => undefined, debug: () => undefined, warn: () => undefined },
    };
    await deleteUserFromMedia(deps, DOOMED);
    expect(listed).toEqual(['tracks/601/', `public/${publicId}/`, 'tracks/601/', `public/${publicId}/`]);
    expect(await count(`SELECT count(*)::int AS n FROM jobs WHERE artist_id = $1`, DOOMED)).toBe(0);
    listed.length = 0;
    await deleteUserFromMedia(deps, DOOMED);
    expect(listed).toEqual([]);
  });
});
