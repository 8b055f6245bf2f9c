/**
 * Account export memory (ACC-1, docs/account-control.md "Export"; a benchmark, not a test).
 *
 *   npx tsx bench/account-export.ts            # ~1 GB of originals
 *   EXPORT_BENCH_MB=200 npx tsx bench/account-export.ts
 *
 * A user with EXPORT_BENCH_MB of originals (files of 50 MB of random bytes written straight to
 * catalog's bucket, with catalog rows inserted by SQL) asks for an export. identity and catalog run
 * as child processes (`tsx src/server.ts`, sampled from /proc every 20 ms, the process and its
 * descendants); social, messaging, notification and billing run in this process (their parts are a
 * few rows). Reported: each child's RSS before the request, its peak until READY and the increase,
 * the ZIP's size and the time. Goal: the increase does not grow with the originals (identity
 * streams the ZIP through one 8-MiB upload part at a time).
 * Everything runs on private infrastructure (databases t_export_bench_*, nats-server, s3rver).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgPool } from '../packages/db/src/index.ts';
import { createTestDatabase, freePort, startNatsServer, startS3rver, testInfra, type TestDatabase } from '../packages/testing/src/index.ts';
import { ObjectStorage } from '../packages/storage/src/index.ts';
import { deriveAssertionKey, signAssertion } from '../packages/http/src/gateway-assertion.ts';
import { buildApp as buildSocial, loadSocialConfig } from '../services/social/src/app.ts';
import { buildApp as buildMessaging, loadMessagingConfig } from '../services/messaging/src/app.ts';
import { buildApp as buildNotification, loadNotificationConfig } from '../services/notification/src/app.ts';
import { buildApp as buildBilling, loadBillingConfig } from '../services/billing/src/app.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const MB = 1024 * 1024;
const TOTAL_MB = Number(process.env.EXPORT_BENCH_MB ?? 1024);
const FILE_MB = 50;
const MASTER = 'export-bench-gateway-signing-key';

/** RSS of a process and its descendants (tsx runs the server in a child node process). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const own = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
  const sizes = await Promise.all(children.map((child) => rssOf(child)));
  return own + sizes.reduce((a, b) => a + b, 0);
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** `mb` MB of random-looking bytes, made quickly: one random MB, each copy stamped with its index. */
async function* randomFile(mb: number, seed: Buffer): AsyncIterable<Buffer> {
  for (let i = 0; i < mb; i++) {
    const chunk = Buffer.from(seed);
    chunk.writeUInt32BE(i, 0);
    yield chunk;
  }
}

const SERVICES = ['identity', 'catalog', 'social', 'messaging', 'notification', 'billing'] as const;
type Service = (typeof SERVICES)[number];

async function main() {
  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const dbs = new Map<Service, TestDatabase>();
  for (const s of SERVICES) dbs.set(s, await createTestDatabase(`export_bench_${s}`, path.join(root, `services/${s}/prisma/migrations`)));
  const ports = new Map<Service, number>();
  for (const s of SERVICES) ports.set(s, await freePort());
  const urls = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, `http://127.0.0.1:${ports.get(s)}`]));
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    NATS_URL: nats.url,
    REDIS_URL: testInfra().redisUrl,
    REDIS_KEY_PREFIX: `export-bench-${randomUUID().slice(0, 8)}:`,
    DB_AUTO_MIGRATE: 'false',
    OUTBOX_POLL_MS: '100',
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    ...urls,
  };
  const envOf = (s: Service) => ({ ...common, DATABASE_URL: dbs.get(s)!.url, PORT: String(ports.get(s)) });
  const children = new Map<Service, ChildProcess>();
  const mailDir = await mkdtemp(path.join(os.tmpdir(), 'export-bench-mail-'));
  const inProcess: Array<{ close(): Promise<unknown> }> = [];
  try {
    for (const s of ['identity', 'catalog'] as const) {
      const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['src/server.ts'], {
        cwd: path.join(root, `services/${s}`),
        env: {
          ...process.env,
          ...envOf(s),
          GATEWAY_ASSERTION_KEY: deriveAssertionKey(MASTER, s),
          ...(s === 'identity' ? { EXPORT_POLL_MS: '500', MAIL_DIR: mailDir } : {}),
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.set(s, child);
      // One at a time: on a busy machine concurrent boots time out (identity creates its signing key).
      await waitForHttp(`http://127.0.0.1:${ports.get(s)}/health`, 120_000);
    }
    const builders = {
      social: async () => buildSocial(loadSocialConfig(envOf('social')), { logger: false }),
      messaging: async () => buildMessaging(loadMessagingConfig(envOf('messaging')), { logger: false }),
      notification: async () => buildNotification(loadNotificationConfig(envOf('notification')), { logger: false }),
      billing: async () => buildBilling(loadBillingConfig(envOf('billing')), { logger: false }),
    };
    for (const [s, build] of Object.entries(builders)) {
      const app = await build();
      await app.listen({ port: ports.get(s as Service)!, host: '127.0.0.1' });
      inProcess.push(app);
    }
    const identityUrl = `http://127.0.0.1:${ports.get('identity')}`;

    // The user, then the originals straight into catalog's bucket and their tracks by SQL.
    const reg = await fetch(`${identityUrl}/api/auth/register/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'exporter@example.com', displayName: 'Exporter', password: 'a long enough secret', dateOfBirth: '1990-01-01' }),
    });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
    const { userId, username } = (await reg.json()) as { userId: number; username: string };
    const catalogStorage = new ObjectStorage({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      bucket: 'msp-catalog',
    });
    const files = Math.max(1, Math.round(TOTAL_MB / FILE_MB));
    const perFile = Math.max(1, Math.round(TOTAL_MB / files));
    const catalogDb = createPgPool(dbs.get('catalog')!.url, 1);
    const seed = randomBytes(MB);
    const generated = performance.now();
    for (let i = 0; i < files; i++) {
      const key = `uploads/${randomUUID()}/original`;
      await catalogStorage.putStream(key, randomFile(perFile, seed), 'audio/wav');
      await catalogDb.query(
        `INSERT INTO tracks (artist_id, title, track_slug, genre, release_date, state, secret_token, upload_id, updated_at, original_key, original_format, original_size)
         VALUES ($1, $2, $3, 'Bench', current_date, 'FINISHED', $4, $5::uuid, now(), $6, 'WAV', $7)`,
        [userId, `Big ${i + 1}`, `${username}-big-${i + 1}`, randomUUID(), randomUUID(), key, perFile * MB],
      );
    }
    await catalogDb.end();
    console.log(`${files} originals of ${perFile} MB written in ${((performance.now() - generated) / 1000).toFixed(1)} s`);

    // Let the children settle, then sample them from the request until READY.
    await new Promise((r) => setTimeout(r, 2000));
    const idle = new Map<Service, number>();
    const peak = new Map<Service, number>();
    for (const [s, child] of children) {
      idle.set(s, await rssOf(child.pid!));
      peak.set(s, idle.get(s)!);
    }
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const [s, child] of children) peak.set(s, Math.max(peak.get(s)!, await rssOf(child.pid!).catch(() => 0)));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const sessionId = randomUUID();
    /** What the gateway forwards for the user: the identity headers, signed for identity. */
    const caller = (method: string, url: string): Record<string, string> => {
      const headers: Record<string, string> = {
        'x-user-id': String(userId),
        'x-user-role': 'ARTIST',
        'x-user-tier': 'FREE',
        'x-session-id': sessionId,
        'x-username': username,
        'x-client-ip': '127.0.0.1',
        'x-request-id': randomUUID(),
      };
      headers['x-gateway-assertion'] = signAssertion(deriveAssertionKey(MASTER, 'identity'), { method, url, requestId: headers['x-request-id']!, headers });
      return headers;
    };
    const started = performance.now();
    const requested = await fetch(`${identityUrl}/api/users/me/export`, { method: 'POST', headers: caller('POST', '/api/users/me/export') });
    if (requested.status !== 202) throw new Error(`ACC-1: ${requested.status} ${await requested.text()}`);
    const { exportId } = (await requested.json()) as { exportId: string };
    let state: { status: string; url?: string } = { status: 'PENDING' };
    while (state.status !== 'READY') {
      if (state.status === 'FAILED' || performance.now() - started > 30 * 60_000) throw new Error(`export ${state.status}`);
      await new Promise((r) => setTimeout(r, 250));
      state = (await (
        await fetch(`${identityUrl}/api/users/me/export/${exportId}`, { headers: caller('GET', `/api/users/me/export/${exportId}`) })
      ).json()) as typeof state;
    }
    const elapsed = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    const head = await fetch(state.url!, { headers: { range: 'bytes=0-0' } });
    const zipBytes = Number(/\/(\d+)$/.exec(head.headers.get('content-range') ?? '')?.[1] ?? 0);
    await head.arrayBuffer();
    const lines = [
      `export of ${files} originals (${files * perFile} MB) READY in ${elapsed.toFixed(1)} s; ZIP ${(zipBytes / MB).toFixed(0)} MB`,
      ...[...children.keys()].map(
        (s) =>
          `${s}: RSS before ${(idle.get(s)! / MB).toFixed(0)} MB, peak ${(peak.get(s)! / MB).toFixed(0)} MB, +${((peak.get(s)! - idle.get(s)!) / MB).toFixed(0)} MB`,
      ),
    ];
    console.log(`\n${lines.join('\n')}`);
  } finally {
    // Let the children stop before their databases go (else they log their pools' errors).
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(resolve, 15_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await Promise.allSettled(inProcess.map((a) => a.close()));
    await Promise.allSettled([nats.close(), s3.close()]);
    await Promise.allSettled([...dbs.values()].map((d) => d.drop()));
    await rm(mailDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
