/**
 * AUTH-1 login throughput (a benchmark, not a test).
 *
 *   npx tsx bench/identity-login.ts                        # boots identity + gateway on private infrastructure
 *   npx tsx bench/identity-login.ts http://localhost:8080   # a running `pnpm dev` fleet
 *
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONCURRENCY (default 8), BENCH_MAIL_DIR (URL
 * mode: where the dev identity writes its .eml files; default services/identity/.data/mail).
 * Reports logins/s and p50/p99 latency through the gateway and, when it booted the pieces itself,
 * straight to identity too (the ratio is what matters on a noisy 2-core machine). In URL mode the
 * gateway's per-client rate limit (RATE_LIMIT_CLIENT_PER_MINUTE, default 1200) caps the rate.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { buildApp, loadIdentityConfig } from '../services/identity/src/app.ts';
import { buildGateway, loadGatewayConfig } from '../gateway/src/app.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PASSWORD = 'benchmark password 42';

interface Target {
  gatewayUrl: string;
  identityUrl: string | null;
  /** Makes the registered address verified (database in boot mode, the mailed link in URL mode). */
  verify(email: string): Promise<void>;
  close(): Promise<void>;
}

async function boot(): Promise<Target> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const [nats, s3, db] = await Promise.all([
    startNatsServer(),
    startS3rver(),
    createTestDatabase('bench_identity', path.join(root, 'services/identity/prisma/migrations')),
  ]);
  const [identityPort, gatewayPort] = [await freePort(), await freePort()];
  const prefix = `bench-${randomUUID().slice(0, 8)}:`;
  const identity = await buildApp(
    loadIdentityConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: db.url,
      DB_AUTO_MIGRATE: 'false',
      NATS_URL: nats.url,
      REDIS_URL: testInfra().redisUrl,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      REDIS_KEY_PREFIX: prefix,
      MAIL_DIR: path.join(root, '.data/bench-mail'),
    }),
    { logger: false },
  );
  await identity.listen({ port: identityPort, host: '127.0.0.1' });
  const identityUrl = `http://127.0.0.1:${identityPort}`;
  const gateway = await buildGateway(
    loadGatewayConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: prefix,
      IDENTITY_URL: identityUrl,
      JWKS_URL: `${identityUrl}/.well-known/jwks.json`,
      RATE_LIMIT_CLIENT_PER_MINUTE: '1000000',
    }),
    { logger: false },
  );
  await gateway.listen({ port: gatewayPort, host: '127.0.0.1' });
  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    identityUrl,
    async verify(email) {
      await identity.infra.prisma.userEmail.updateMany({ where: { email }, data: { isVerified: true, verifiedAt: new Date() } });
      await identity.infra.prisma.user.updateMany({ where: { email }, data: { emailVerified: true } });
    },
    async close() {
      await gateway.close();
      await identity.close();
      await Promise.allSettled([nats.close(), s3.close(), db.drop()]);
    },
  };
}

function remote(gatewayUrl: string): Target {
  const mailDir = process.env.BENCH_MAIL_DIR ?? 'services/identity/.data/mail';
  return {
    gatewayUrl: gatewayUrl.replace(/\/+$/, ''),
    identityUrl: null,
    async verify(email) {
      // The dev fleet writes each mail as an .eml file; the newest one to `email` has the link.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const files = (await readdir(mailDir).catch(() => []))
          .filter((f) => f.endsWith('.eml'))
          .sort()
          .reverse();
        for (const file of files.slice(0, 20)) {
          const text = await readFile(path.join(mailDir, file), 'utf8');
          if (!text.includes(email)) continue;
          const token = /verify-email\?token=([\w-]+)/.exec(text.replace(/=\r?\n/g, ''))?.[1];
          if (!token) continue;
          const res = await fetch(`${this.gatewayUrl}/api/auth/verify-email`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token }),
          });
          if (res.ok) return;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`no verification mail for ${email} in ${mailDir}`);
    },
    async close() {},
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(label: string, url: string, email: string, seconds = SECONDS) {
  const body = JSON.stringify({ email, password: PASSWORD });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await fetch(`${url}/api/auth/login/local`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - t);
        else errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = {
    target: label,
    logins: latencies.length,
    errors,
    loginsPerSecond: Number((latencies.length / elapsed).toFixed(1)),
    p50ms: Number(percentile(latencies, 50).toFixed(1)),
    p99ms: Number(percentile(latencies, 99).toFixed(1)),
  };
  console.log(JSON.stringify(result));
  return result;
}

const target = process.argv[2] ? remote(process.argv[2]) : await boot();
try {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const reg = await fetch(`${target.gatewayUrl}/api/auth/register/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName: 'Bench User', password: PASSWORD, dateOfBirth: '1990-01-01' }),
  });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}: ${await reg.text()}`);
  await target.verify(email);
  console.log(`AUTH-1 for ${SECONDS} s with ${CONCURRENCY} concurrent clients (argon2id m=19 MiB, t=2, p=1)`);
  await run('warm-up', target.gatewayUrl, email, 2);
  const viaGateway = await run('gateway', target.gatewayUrl, email);
  if (target.identityUrl) {
    const direct = await run('identity (direct)', target.identityUrl, email);
    console.log(`gateway / direct throughput ratio: ${(viaGateway.loginsPerSecond / direct.loginsPerSecond).toFixed(2)}`);
  }
} finally {
  await target.close();
}
