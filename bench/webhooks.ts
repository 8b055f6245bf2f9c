/**
 * Webhook fan-out and delivery (a benchmark, not a test): deliveries/s and latency from the event
 * to the receiver (docs/developer-platform.md "Webhooks"; goal: p95 ≤ 1 s).
 *
 *   npx tsx bench/webhooks.ts                                   # 10,000 events at once to 100 endpoints
 *   BENCH_STEPS=100,250,500,1000,2000 npx tsx bench/webhooks.ts # sustained rates: the highest with p95 ≤ 1 s
 *   BENCH_EVENTS=10000 BENCH_ENDPOINTS=100 BENCH_MODE=spread BENCH_RATE=500 npx tsx bench/webhooks.ts
 *
 * Runs notification in this process (sources through tsx) on a fresh test database (`t_whbench_*`,
 * dropped at the end), a private NATS and object store, and a local HTTP receiver on 127.0.0.1 that
 * verifies every signature. BENCH_ENDPOINTS endpoints subscribe to `track.liked`; BENCH_EVENTS
 * `social.item.liked` events are published to JetStream at BENCH_RATE events/s (0, the default: at
 * once, 200 publishes in flight), on BENCH_RESOURCES tracks (default 1,000; deliveries of one track go out in order).
 *   - BENCH_MODE=spread (default): one app per endpoint, each event concerns one app's owner, so
 *     each event goes to one endpoint (BENCH_EVENTS deliveries in all).
 *   - BENCH_MODE=all: apps of one owner (10 endpoints each, the limit per app), each event goes to all of them
 *     (BENCH_EVENTS × BENCH_ENDPOINTS deliveries: use e.g. BENCH_EVENTS=100).
 * Reports deliveries/s (first publish to last arrival), latency p50/p95/p99/max (event creation to
 * arrival at the receiver), duplicates, bad signatures, and the load average before and after.
 * BENCH_STEPS (events/s, comma-separated) runs one phase of BENCH_STEP_SECONDS (10) per rate instead,
 * in increasing order until a phase's p95 exceeds 1 s, and reports the highest rate that held.
 * WEBHOOK_CONCURRENCY (default 64) and WEBHOOK_CONNECTIONS_PER_ORIGIN (16; every endpoint of the
 * bench is one origin, the local receiver) set the dispatcher's requests in flight.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { AppRegistered, createEnvelope, ItemLiked } from '../packages/events/src/index.ts';
import { startServiceTestEnv, waitFor } from '../packages/testing/src/index.ts';
import { buildApp, loadNotificationConfig } from '../services/notification/src/app.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 100);
const MODE = process.env.BENCH_MODE === 'all' ? 'all' : 'spread';
const RATE = Number(process.env.BENCH_RATE ?? 0);
const STEPS = (process.env.BENCH_STEPS ?? '').split(',').filter(Boolean).map(Number);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 10);
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 1000);
const CONCURRENCY = process.env.WEBHOOK_CONCURRENCY ?? '256';
const CONNECTIONS = process.env.WEBHOOK_CONNECTIONS_PER_ORIGIN ?? '16';

const secrets = new Map<string, string>();
let latencies: number[] = [];
const seen = new Set<string>();
let duplicates = 0;
let badSignatures = 0;
let lastArrival = 0;

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const arrived = Date.now();
    const raw = Buffer.concat(chunks).toString();
    const body = JSON.parse(raw) as { id: string; created: string };
    const [t, v1] = String(req.headers['webhook-signature'])
      .split(',')
      .map((p) => p.split('=')[1]);
    const mac = createHmac('sha256', secrets.get(req.url ?? '') ?? '')
      .update(`${t}.${raw}`)
      .digest('hex');
    if (mac !== v1) badSignatures++;
    const key = `${req.url}|${body.id}`;
    if (seen.has(key)) duplicates++;
    seen.add(key);
    latencies.push(arrived - Date.parse(body.created));
    lastArrival = arrived;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const migrations = fileURLToPath(new URL('../services/notification/prisma/migrations', import.meta.url));
const env = await startServiceTestEnv('whbench', migrations);
const app = await buildApp(
  loadNotificationConfig({ ...env.env, WEBHOOK_CONCURRENCY: CONCURRENCY, WEBHOOK_CONNECTIONS_PER_ORIGIN: CONNECTIONS, WEBHOOK_POLL_MS: '500' }),
  { logger: false },
);
await app.ready();
const js = app.infra.js;

// Apps (owner = app id) and endpoints.
// `all`: apps of one owner (user 1), 10 endpoints each (the per-app limit).
const apps = MODE === 'all' ? Math.ceil(ENDPOINTS / 10) : ENDPOINTS;
for (let a = 1; a <= apps; a++) {
  const e = createEnvelope(AppRegistered, {
    appId: a,
    clientId: `app_${a}`,
    ownerId: MODE === 'all' ? 1 : a,
    name: `bench ${a}`,
    suspended: false,
    version: new Date().toISOString(),
  });
  await js.publish(e.type, JSON.stringify(e), { msgID: e.id });
}
await waitFor(async () => (await app.infra.prisma.webhookApp.count()) === apps, { timeoutMs: 60_000 });
for (let i = 1; i <= ENDPOINTS; i++) {
  const appId = MODE === 'all' ? Math.ceil(i / 10) : i;
  const res = await app.inject({
    method: 'POST',
    url: `/api/apps/${appId}/webhooks`,
    headers: { 'x-user-id': String(MODE === 'all' ? 1 : appId) },
    payload: { url: `${base}/e${i}`, events: ['track.liked'] },
  });
  if (res.statusCode !== 201) throw new Error(`APP-18 answered ${res.statusCode}: ${res.body}`);
  secrets.set(`/e${i}`, (res.json() as { secret: string }).secret);
}

let sequence = 0;

function likeEvent() {
  const n = sequence++;
  const owner = MODE === 'all' ? 1 : (n % ENDPOINTS) + 1;
  return createEnvelope(ItemLiked, {
    userId: 100_000 + n,
    targetType: 'TRACK',
    targetId: (n % RESOURCES) + 1,
    ownerId: owner,
    likeCount: n + 1,
    at: new Date().toISOString(),
  });
}

/** Publishes `events` events at `rate` per second (0: at once), waits for every delivery, and measures. */
async function phase(events: number, rate: number) {
  const expected = seen.size + (MODE === 'all' ? events * ENDPOINTS : events);
  latencies = [];
  const loadBefore = loadavg();
  const since = new Date();
  const started = Date.now();
  if (rate > 0) {
    for (let n = 0; n < events; n++) {
      const e = likeEvent();
      await js.publish(e.type, JSON.stringify(e), { msgID: e.id });
      const wait = started + ((n + 1) * 1000) / rate - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  } else {
    for (let n = 0; n < events; n += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, events - n) }, () => {
          const e = likeEvent();
          return js.publish(e.type, JSON.stringify(e), { msgID: e.id });
        }),
      );
    }
  }
  const published = Date.now();
  await waitFor(() => seen.size >= expected || undefined, { timeoutMs: 1_200_000, intervalMs: 100 });
  const loadAfter = loadavg();
  // Where the time went: rows queued by the consumer (fan-out) vs. sent by the dispatcher.
  const [stages] = await app.infra.prisma.$queryRawUnsafe<{ fanout_s: number; dispatch_s: number; to_queue_p95_ms: number; to_send_p95_ms: number }[]>(
    `SELECT EXTRACT(EPOCH FROM max(created_at) - min(created_at))::float8 AS fanout_s,
            EXTRACT(EPOCH FROM max(delivered_at) - min(created_at))::float8 AS dispatch_s,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM created_at - (body::json->>'created')::timestamptz) * 1000) AS to_queue_p95_ms,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM delivered_at - created_at) * 1000) AS to_send_p95_ms
       FROM webhook_deliveries WHERE created_at >= $1`,
    since,
  );
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return {
    events,
    deliveries: sorted.length,
    publishRatePerSecond: rate || 'at once',
    publishSeconds: (published - started) / 1000,
    deliveriesPerSecond: Math.round(sorted.length / ((lastArrival - started) / 1000)),
    latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99), max: sorted[sorted.length - 1] },
    queuedOverSeconds: stages?.fanout_s,
    deliveredOverSeconds: stages?.dispatch_s,
    // p95 of event → row queued by the consumer, and of row queued → recorded delivered.
    stageP95Ms: { eventToQueued: Math.round(stages?.to_queue_p95_ms ?? 0), queuedToDelivered: Math.round(stages?.to_send_p95_ms ?? 0) },
    loadAverage1m: { before: loadBefore[0], after: loadAfter[0] },
  };
}

const setup = { mode: MODE, endpoints: ENDPOINTS, resources: RESOURCES, concurrency: Number(CONCURRENCY), connectionsPerOrigin: Number(CONNECTIONS) };
if (STEPS.length > 0) {
  const steps = [];
  let held: number | null = null;
  for (const rate of STEPS) {
    const result = await phase(rate * STEP_SECONDS, rate);
    steps.push(result);
    console.log(JSON.stringify(result));
    if (result.latencyMs.p95 > 1000) break;
    held = rate;
  }
  console.log(JSON.stringify({ ...setup, stepSeconds: STEP_SECONDS, highestRateWithP95UnderOneSecond: held, steps, duplicates, badSignatures }, null, 2));
} else {
  console.log(JSON.stringify({ ...setup, ...(await phase(EVENTS, RATE)), duplicates, badSignatures }, null, 2));
}

await app.close();
await env.close();
await new Promise((resolve) => receiver.close(resolve));
