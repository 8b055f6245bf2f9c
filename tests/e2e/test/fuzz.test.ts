import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, ROUTES } from '@msp/contracts';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import { startStripeStandIn, type StripeStandIn } from '@msp/billing/stripe-stand-in';
import { Fleet } from './fleet.js';
import { generateCases, operationsOf, type FuzzCase, type Operation } from './fuzz-cases.js';

/**
 * Hostile input over every operation of the merged OpenAPI document, through the gateway, for an
 * anonymous and a signed-in caller. Asserts for every answer: no 5xx, the ErrorResponse
 * shape on every 4xx, an answer within 5 s. Spot checks afterwards: refused requests stored nothing.
 * A larger run with more cases per operation: `npx tsx scripts/fuzz.ts` (see README).
 */

const fleet = new Fleet();
let stripe: StripeStandIn;
let operations: Operation[] = [];
let token = '';
const USER = 4242;
const ANSWER_WITHIN_MS = 5000;

type Answer = { status: number; body: string; ms: number };

function send(base: URL, c: FuzzCase, auth: boolean): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: http.OutgoingHttpHeaders = { ...c.headers };
    if (auth) headers.authorization = `Bearer ${token}`;
    if (c.body !== undefined) {
      headers['content-length'] = Buffer.byteLength(c.body);
      if (!('content-type' in headers)) headers['content-type'] = 'application/json';
    }
    const req = http.request({ host: base.hostname, port: base.port, method: c.method, path: c.path, headers, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ status: 0, body: 'no answer within 5 s', ms: performance.now() - started });
    }, ANSWER_WITHIN_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - started });
      });
      res.on('error', () => undefined);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      resolve({ status: -1, body: `socket error: ${err.message}`, ms: performance.now() - started });
    });
    req.end(c.body);
  });
}

function problem(c: FuzzCase, auth: boolean, answer: Answer): string | null {
  const label = `${c.operation} ${auth ? 'signed-in' : 'anonymous'} ${c.label}: ${c.method} ${c.path.slice(0, 120)}`;
  if (answer.status <= 0) return `${label} → ${answer.body}`;
  if (answer.status >= 500) return `${label} → ${answer.status} ${answer.body.slice(0, 200)}`;
  if (answer.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      return `${label} → ${answer.status} not JSON: ${answer.body.slice(0, 120)}`;
    }
    const checked = ErrorResponseSchema.safeParse(parsed);
    if (!checked.success) return `${label} → ${answer.status} not an ErrorResponse: ${answer.body.slice(0, 160)}`;
    const body = parsed as { status: number; code: string; errors?: unknown };
    if (body.status !== answer.status) return `${label} → status ${answer.status} but body says ${body.status}`;
    if ((body.code === 'VALIDATION_FAILED' || body.code === 'WEAK_PASSWORD') && !Array.isArray(body.errors)) {
      return `${label} → ${body.code} without errors`;
    }
  }
  return null;
}

const identity = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;

beforeAll(async () => {
  // Third parties configured as in development (a Stripe stand-in, a Google client), so that their
  // absence is not what answers: every operation gets to judge its input.
  stripe = await startStripeStandIn({ secretKey: 'sk_test_fuzz', webhookSecret: 'whsec_fuzz' });
  await fleet.start(
    { RATE_LIMIT_CLIENT_PER_MINUTE: '1000000', RATE_LIMIT_USER_PER_MINUTE: '1000000' },
    {
      billing: { ...stripe.billingEnv(), STRIPE_PRICE_ID: 'price_fuzz' },
      identity: { GOOGLE_CLIENT_ID: 'fuzz-client.apps.example', GOOGLE_CLIENT_SECRET: 'fuzz-secret' },
    },
  );
  token = await identity().keys.sign(
    { sub: String(USER), username: `fuzzer`, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
    1800,
    'msp-identity',
  );
  const doc = (await (await fleet.fetch('/api/openapi.json')).json()) as Parameters<typeof operationsOf>[0];
  operations = operationsOf(doc);
}, 180_000);

afterAll(async () => {
  await fleet.close();
  await stripe?.close();
});

describe('fuzz: hostile input on every operation of the OpenAPI document', () => {
  it('fuzzes every operation the document lists, and every one of them is a contract route', () => {
    const contract = new Set(ROUTES.map((r) => `${r.method} /api${r.path}`));
    const documented = operations.map((o) => `${o.method} ${o.path}`);
    expect(documented.length).toBeGreaterThan(100);
    expect(documented.filter((d) => !contract.has(d))).toEqual([]);
    const fuzzed = new Set(operations.flatMap((o) => generateCases(o)).map((c) => c.operation));
    expect(documented.filter((d) => !fuzzed.has(d))).toEqual([]);
  });

  it('answers every case without a 5xx, with an ErrorResponse on every 4xx, within 5 s', async () => {
    const base = new URL(fleet.gatewayUrl);
    const cases = operations.flatMap((o) => generateCases(o));
    // Destructive operations (logout-all, deletions) last, so they cannot hide the others behind a 401.
    cases.sort((a, b) => Number(a.destructive) - Number(b.destructive));
    const problems: string[] = [];
    let sent = 0;
    const queue = [
      ...cases.flatMap(
        (c) =>
          [
            [c, false],
            [c, true],
          ] as Array<[FuzzCase, boolean]>,
      ),
    ];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [c, auth] = next;
        const answer = await send(base, c, auth);
        sent += 1;
        const found = problem(c, auth, answer);
        if (found) problems.push(found);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    console.log(`fuzz: ${operations.length} operations, ${sent} requests, ${problems.length} problems`);
    expect(problems.slice(0, 40)).toEqual([]);
  }, 600_000);

  it('stored nothing for refused requests (spot checks)', async () => {
    const users = await identity().infra.prisma.user.count();
    expect(users).toBe(0);
    const playlists = await catalog().infra.prisma.playlist.count();
    expect(playlists).toBe(0);
    const tracks = await catalog().infra.prisma.track.count();
    expect(tracks).toBe(0);
  });
});
