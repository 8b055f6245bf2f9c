/**
 * A larger hostile-input run than CI's (tests/e2e/test/fuzz.test.ts) against a running fleet:
 * every case of the CI suite plus N random mutations per operation (random text with control
 * characters, unpaired surrogates and NUL, random numbers and nesting, random query strings).
 *
 *   pnpm dev                                   # in another terminal
 *   npx tsx scripts/fuzz.ts [--base http://localhost:8080] [--per-op 200] [--seed 1] [--token <jwt>]
 *
 * Prints every 5xx, every 4xx that is not an ErrorResponse, every answer slower than 5 s and
 * exits 1 when there is one. Raise RATE_LIMIT_CLIENT_PER_MINUTE on the gateway for big runs (and, with
 * --token, RATE_LIMIT_USER_PER_MINUTE: the caller's own budget).
 */
import http from 'node:http';
import { generateCases, isDestructive, operationsOf, type FuzzCase, type Operation } from '../tests/e2e/test/fuzz-cases.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const base = new URL(args.get('base') ?? 'http://localhost:8080');
const perOp = Number(args.get('per-op') ?? 200);
let seed = Number(args.get('seed') ?? 1) >>> 0;
const token = args.get('token');

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const ALPHABET = [
  'a',
  'Z',
  '0',
  ' ',
  '%',
  '&',
  '=',
  '"',
  '\\',
  '/',
  '\u0000',
  '\u0001',
  '\u007f',
  '\ud800',
  '\udc00',
  '\ud83c\udfb5',
  'é',
  '\u202e',
  '\n',
  '\t',
];
function randomText(max = 64): string {
  const length = Math.floor(random() * max);
  return Array.from({ length }, () => pick(ALPHABET)).join('');
}
function randomValue(depth = 0): unknown {
  switch (Math.floor(random() * (depth > 3 ? 5 : 7))) {
    case 0:
      return randomText();
    case 1:
      return pick([0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, 0.5, Number.MAX_SAFE_INTEGER]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return 'x'.repeat(Math.floor(random() * 5000));
    case 4:
      return '';
    case 5:
      return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [randomText(8), randomValue(depth + 1)]));
  }
}

/** encodeURIComponent, except that an unpaired surrogate goes out as its CESU-8 bytes (which no decoder accepts). */
function enc(text: string): string {
  return text
    .replace(/[\ud800-\udfff]/g, '\u0000')
    .split('\u0000')
    .map((part) => encodeURIComponent(part))
    .join('%ED%A0%80');
}

function mutations(op: Operation): FuzzCase[] {
  const operation = `${op.method} ${op.path}`;
  // A random logout with --token would revoke it and leave every later bearer case a 401.
  const destructive = isDestructive(op);
  const out: FuzzCase[] = [];
  for (let i = 0; i < perOp; i += 1) {
    const segment = () => enc(String(randomValue())).slice(0, 200) || '1';
    const path = op.path.replace(/\{[^}]+\}/g, () => (random() < 0.5 ? String(Math.floor(random() * 10)) : segment()));
    const query = op.queryParams.map((p) => `${enc(p.name)}=${random() < 0.3 ? '%' + enc(randomText(2)) : enc(String(randomValue()))}`).join('&');
    let body: string | undefined;
    if (op.body?.kind === 'json') {
      const fields = Object.keys(op.body.properties);
      body = JSON.stringify(Object.fromEntries(fields.filter(() => random() < 0.7).map((f) => [f, randomValue()])));
    }
    out.push({ operation, label: `random #${i}`, method: op.method, path: query ? `${path}?${query}` : path, headers: {}, body, destructive });
  }
  return out;
}

function send(c: FuzzCase): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: http.OutgoingHttpHeaders = { ...c.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (c.body !== undefined) {
      headers['content-length'] = Buffer.byteLength(c.body);
      headers['content-type'] ??= 'application/json';
    }
    const req = http.request({ host: base.hostname, port: base.port, method: c.method, path: c.path, headers });
    const timer = setTimeout(() => req.destroy(new Error('no answer within 5 s')), 5000);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - started });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      resolve({ status: 0, body: err.message, ms: performance.now() - started });
    });
    req.end(c.body);
  });
}

const doc = (await (await fetch(new URL('/api/openapi.json', base))).json()) as Parameters<typeof operationsOf>[0];
const operations = operationsOf(doc);
const cases = operations.flatMap((op) => [...generateCases(op), ...mutations(op)]).sort((a, b) => Number(a.destructive) - Number(b.destructive));
let problems = 0;
let done = 0;
const queue = [...cases];
await Promise.all(
  Array.from({ length: 16 }, async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const answer = await send(c);
      done += 1;
      let bad = answer.status === 0 || answer.status >= 500;
      if (!bad && answer.status >= 400) {
        try {
          const parsed = JSON.parse(answer.body) as { status?: number; code?: string };
          bad = parsed.status !== answer.status || typeof parsed.code !== 'string';
        } catch {
          bad = true;
        }
      }
      if (bad) {
        problems += 1;
        console.log(`${answer.status} ${c.operation} ${c.label}: ${c.method} ${c.path.slice(0, 160)} → ${answer.body.slice(0, 200)}`);
      }
    }
  }),
);
console.log(`${operations.length} operations, ${done} requests, ${problems} problems`);
process.exit(problems > 0 ? 1 : 0);
