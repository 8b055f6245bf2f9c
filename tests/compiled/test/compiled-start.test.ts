/**
 * The compiled JavaScript of every workload starts and answers /ready, laid out as in its image:
 * `pnpm build` (scripts/build-service.mjs: dist/server.js, dist/migrate.js), then
 * `pnpm deploy --prod` with a flat node_modules (the Dockerfile's exact command, into a temporary
 * folder), then `node dist/migrate.js` once (the migration Job) and `node dist/server.js` with
 * NODE_ENV=production and DB_AUTO_MIGRATE=false, every production-required variable given.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase } from '@msp/db';
import { freePort, startNatsServer, startS3rver, testInfra, waitFor, type NatsServerHandle, type S3rverHandle } from '@msp/testing';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The Dockerfile's deploy command (keep the two in step). */
export const DEPLOY_ARGS = ['deploy', '--prod', '--legacy', '--config.node-linker=hoisted', '--config.auto-install-peers=false'];

const WORKLOADS = [
  { name: 'identity', dir: 'services/identity', db: true },
  { name: 'catalog', dir: 'services/catalog', db: true },
  { name: 'media-processing', dir: 'services/media-processing', db: true },
  { name: 'social', dir: 'services/social', db: true },
  { name: 'messaging', dir: 'services/messaging', db: true },
  { name: 'notification', dir: 'services/notification', db: true },
  { name: 'billing', dir: 'services/billing', db: true },
  { name: 'gateway', dir: 'gateway', db: false },
] as const;

let nats: NatsServerHandle;
let s3: S3rverHandle;
let outRoot: string;
const databases: string[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  outRoot = await mkdtemp(path.join(os.tmpdir(), 'msp-compiled-'));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.allSettled([nats?.close(), s3?.close(), ...databases.map((url) => dropDatabase(url))]);
  if (outRoot) {
    await rm(outRoot, { recursive: true, force: true });
    // `pnpm deploy` with the hoisted linker also leaves empty node_modules/.bin folders named after
    // the target under the workspace (seen: <root>/tmp/<name>, <root>/<name>, <root>/services/<name>).
    const name = path.basename(outRoot);
    await Promise.all(
      [ROOT, path.join(ROOT, 'tmp'), path.join(ROOT, 'services'), path.join(ROOT, 'packages'), path.join(ROOT, 'tests')].map((dir) =>
        rm(path.join(dir, name), { recursive: true, force: true }),
      ),
    );
    await rmdir(path.join(ROOT, 'tmp')).catch(() => undefined); // only when empty: anything else there is not ours
  }
});

function productionEnv(name: string, port: number, databaseUrl: string): Record<string, string> {
  const vapid = webpush.generateVAPIDKeys();
  const key = (label: string) => `compiled-start-test-${label}-key-0123456789`;
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    // The shutdown's grace delay (packages/http shutdown.ts) is 5 s in production; these starts stop at once.
    SHUTDOWN_GRACE_MS: '200',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DB_AUTO_MIGRATE: 'false',
    NATS_URL: nats.url,
    REDIS_URL: testInfra().redisUrl,
    REDIS_KEY_PREFIX: `compiled-${name}-${port}:`,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: `compiled-${name}`,
    WEB_BASE_URL: 'https://music.example.com',
    PUBLIC_BASE_URL: 'https://music.example.com',
    MEDIA_PUBLIC_BASE_URL: 'https://media.music.example.com/bucket',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    ADMIN_ACCOUNTS: '[]',
    MFA_ENCRYPTION_KEY: key('mfa-encryption'),
    GATEWAY_ASSERTION_KEY: key('assertion'),
    INTERNAL_SERVICE_KEY: key('internal'),
    GATEWAY_SIGNING_KEY: key('signing'),
    METRICS_TOKEN: key('metrics'),
    MEDIA_SIGNING_SECRET: key('media-signing'),
    STRIPE_SECRET_KEY: 'sk_test_compiled_start',
    STRIPE_WEBHOOK_SECRET: 'whsec_compiled_start',
    STRIPE_PRICE_ID: 'price_compiled_start',
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    IDENTITY_URL: 'http://127.0.0.1:1',
    CATALOG_URL: 'http://127.0.0.1:1',
    MEDIA_PROCESSING_URL: 'http://127.0.0.1:1',
    SOCIAL_URL: 'http://127.0.0.1:1',
    MESSAGING_URL: 'http://127.0.0.1:1',
    NOTIFICATION_URL: 'http://127.0.0.1:1',
    BILLING_URL: 'http://127.0.0.1:1',
  };
}

describe('compiled workloads (pnpm build + pnpm deploy --prod, as in the image)', () => {
  for (const workload of WORKLOADS) {
    it(`${workload.name}: dist/server.js starts with NODE_ENV=production and answers /ready`, async () => {
      const pkg = `@msp/${workload.name}`;
      await run('pnpm', ['--filter', pkg, 'run', 'build'], { cwd: ROOT });
      const out = path.join(outRoot, workload.name);
      await run('pnpm', ['--filter', pkg, ...DEPLOY_ARGS, out], { cwd: ROOT });
      // What the Dockerfile leaves out of the image: the sources (the generated Prisma client included).
      await Promise.all(['src', 'test'].map((dir) => rm(path.join(out, dir), { recursive: true, force: true })));

      const port = await freePort();
      const databaseUrl = `${testInfra().postgresUrl}/t_compiled_${workload.name.replace(/-/g, '_')}_${port}`;
      const env = productionEnv(workload.name, port, databaseUrl);
      if (workload.db) {
        databases.push(databaseUrl);
        const migrated = await run('node', ['dist/migrate.js'], { cwd: out, env });
        expect(migrated.stdout).toContain('migrations applied');
      }

      const child = spawn('node', ['--enable-source-maps', '--import', './dist/instrument.js', 'dist/server.js'], {
        cwd: out,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        await waitFor(
          async () => {
            if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${output}`);
            const res = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined); // not listening yet: poll again
            return res?.status === 200 ? true : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 200, message: `${workload.name} did not become ready` },
        ).catch((err: Error) => {
          throw new Error(`${err.message}\n--- output ---\n${output}`);
        });
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
        children.delete(child);
      }
      expect(child.exitCode, `graceful exit after SIGTERM; output: ${output}`).toBe(0);
    });
  }
});

describe('production configuration fails fast at boot (compiled identity)', () => {
  for (const missing of ['SMTP_URL', 'MEDIA_PUBLIC_BASE_URL', 'ADMIN_ACCOUNTS'] as const) {
    it(`exits with a clear message when ${missing} is not set`, async () => {
      const out = path.join(outRoot, 'identity');
      const env = productionEnv('identity', await freePort(), `${testInfra().postgresUrl}/t_compiled_never_created`);
      delete env[missing];
      const failure = await run('node', ['dist/server.js'], { cwd: out, env, timeout: 20_000 }).then(
        () => undefined,
        (err: { code?: number; stderr?: string }) => err,
      );
      expect(failure, 'the process must not start').toBeDefined();
      expect(failure?.code).not.toBe(0);
      expect(failure?.stderr).toContain(`${missing}: required in production`);
    });
  }
});

describe('tracing in the image (compiled catalog, dist/instrument.js preloaded)', () => {
  let collector: Server;
  const batches: unknown[] = [];

  afterAll(async () => {
    await new Promise((resolve) => (collector ? collector.close(resolve) : resolve(undefined)));
  });

  it('exports OTLP spans of the Fastify, http and pg instrumentations to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    // A stand-in collector: OTLP/HTTP JSON on /v1/traces.
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') batches.push(JSON.parse(body) as unknown);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

    const out = path.join(outRoot, 'catalog');
    const port = await freePort();
    const databaseUrl = `${testInfra().postgresUrl}/t_compiled_catalog_traces_${port}`;
    databases.push(databaseUrl);
    const env = { ...productionEnv('catalog', port, databaseUrl), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    await run('node', ['dist/migrate.js'], { cwd: out, env });
    const child = spawn('node', ['--import', './dist/instrument.js', 'dist/server.js'], { cwd: out, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined /* not listening yet: poll again */))?.status === 200, {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      // A read that reaches PostgreSQL through Prisma's pg adapter, with a caller's trace context.
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const res = await fetch(`http://127.0.0.1:${port}/api/tracks/999999`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      expect(res.status).toBe(404);
      const spans = await waitFor(
        () => {
          const all = batches.flatMap((b) =>
            (
              (
                b as {
                  resourceSpans?: {
                    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
                    scopeSpans?: { scope?: { name?: string }; spans?: { traceId: string; name: string }[] }[];
                  }[];
                }
              ).resourceSpans ?? []
            ).flatMap((rs) =>
              (rs.scopeSpans ?? []).flatMap((ss) =>
                (ss.spans ?? []).map((span) => ({
                  ...span,
                  scope: ss.scope?.name ?? '',
                  service: rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue,
                })),
              ),
            ),
          );
          const ofTrace = all.filter((span) => span.traceId === traceId);
          return ofTrace.some((span) => span.scope.includes('instrumentation-pg')) ? ofTrace : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100, message: 'pg spans of the request exported' },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${JSON.stringify(batches).slice(0, 2000)}\n${output}`);
      });
      const scopes = new Set(spans.map((span) => span.scope));
      expect(
        [...scopes].some((scope) => scope.includes('instrumentation-http')),
        [...scopes].join(', '),
      ).toBe(true);
      expect(
        [...scopes].some((scope) => scope.includes('fastify')),
        [...scopes].join(', '),
      ).toBe(true);
      expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['catalog']));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      children.delete(child);
    }
  });
});
