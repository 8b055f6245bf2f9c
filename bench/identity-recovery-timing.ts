/**
 * AUTH-8 and AUTH-7 answer times for known vs unknown addresses (a benchmark, not a test): the
 * timing side channel of account enumeration. Both routes only queue a request and answer; the account
 * lookup, token and mail happen in identity's worker afterwards.
 *
 *   npx tsx bench/identity-recovery-timing.ts          # boots identity + gateway on private infrastructure
 *
 * Options (env): BENCH_SAMPLES (default 50 per kind). Samples alternate known and unknown so that
 * background load weighs on both alike; prints p50 and p90 of each and the p50 difference
 * (goal: within 3 ms), through the gateway and straight to identity.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { buildApp, loadIdentityConfig } from '../services/identity/src/app.ts';
import { buildGateway, loadGatewayConfig } from '../gateway/src/app.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 50);
const PASSWORD = 'benchmark password 42';

const root = fileURLToPath(new URL('..', import.meta.url));
const [nats, s3, db] = await Promise.all([
  startNatsServer(),
  startS3rver(),
  createTestDatabase('bench_recovery', path.join(root, 'services/identity/prisma/migrations')),
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
    // Every sample comes from this one address: the per-address limit is not what is measured.
    FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: '1000000',
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
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;

async function post(url: string, body: object): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

async function register(email: string): Promise<void> {
  const res = await fetch(`${gatewayUrl}/api/auth/register/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName: 'Bench User', password: PASSWORD, dateOfBirth: '1990-01-01' }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${await res.text()}`);
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** `known(i)` / `unknown(i)` give the i-th sample's address (AUTH-7 needs a fresh one per sample: 60-s cooldown). */
async function measure(label: string, base: string, route: string, known: (i: number) => string, unknown: (i: number) => string) {
  for (let i = 0; i < 10; i += 1) await post(`${base}${route}`, { email: `warm-${randomUUID()}@example.com` });
  const k: number[] = [];
  const u: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    k.push(await post(`${base}${route}`, { email: known(i) }));
    u.push(await post(`${base}${route}`, { email: unknown(i) }));
  }
  const result = {
    target: label,
    samples: SAMPLES,
    knownP50ms: Number(pct(k, 50).toFixed(2)),
    unknownP50ms: Number(pct(u, 50).toFixed(2)),
    knownP90ms: Number(pct(k, 90).toFixed(2)),
    unknownP90ms: Number(pct(u, 90).toFixed(2)),
    p50DifferenceMs: Number(Math.abs(pct(k, 50) - pct(u, 50)).toFixed(2)),
  };
  console.log(JSON.stringify(result));
}

try {
  const resetTarget = `bench-reset-${randomUUID().slice(0, 8)}@example.com`;
  await register(resetTarget);
  // AUTH-7 answers a known address only for an unverified account: one per sample and target.
  const unverified = Array.from({ length: 2 * SAMPLES }, () => `bench-unverified-${randomUUID().slice(0, 8)}@example.com`);
  for (const email of unverified) await register(email);
  const fresh = () => `bench-nobody-${randomUUID()}@example.com`;

  console.log(`AUTH-8 and AUTH-7, ${SAMPLES} known and ${SAMPLES} unknown addresses, alternating`);
  await measure('AUTH-8 gateway', gatewayUrl, '/api/auth/forgot-password', () => resetTarget, fresh);
  await measure('AUTH-8 identity (direct)', identityUrl, '/api/auth/forgot-password', () => resetTarget, fresh);
  await measure('AUTH-7 gateway', gatewayUrl, '/api/auth/resend-verification', (i) => unverified[i]!, fresh);
  await measure('AUTH-7 identity (direct)', identityUrl, '/api/auth/resend-verification', (i) => unverified[SAMPLES + i]!, fresh);
} finally {
  await gateway.close();
  await identity.close();
  await Promise.allSettled([nats.close(), s3.close(), db.drop()]);
}
