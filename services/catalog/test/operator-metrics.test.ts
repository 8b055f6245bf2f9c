import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ArtistTrackCountChanged, createEnvelope, UserRegistered, writeOutbox } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

/**
 * The numbers an operator pages on, at catalog's /metrics: the outbox backlog grows while NATS is
 * down and drains when it returns; the durable consumers' lag is reported (and reported unknown,
 * `events_consumer_up 0`, while NATS is down); a dead-lettered event is counted per consumer.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function metrics(): Promise<Map<string, number>> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  const values = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    const match = /^([a-z_:]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return values;
}

const PROJECTION = 'consumer="catalog--user-projection"';

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_operator_metrics', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, OUTBOX_POLL_MS: '200' }), { logger: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('operator metrics at /metrics', () => {
  it('shows an empty outbox and the consumers caught up at rest', async () => {
    const m = await waitFor(
      async () => {
        const current = await metrics();
        return current.get('outbox_unpublished_events') === 0 && current.get(`events_consumer_up{${PROJECTION}}`) === 1 ? current : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(m.get('outbox_oldest_unpublished_age_seconds')).toBe(0);
    expect(m.get(`events_consumer_pending_messages{${PROJECTION}}`)).toBe(0);
    expect(m.get(`events_consumer_redelivered_messages{${PROJECTION}}`)).toBe(0);
    expect(m.get(`events_dead_letter_messages{${PROJECTION}}`)).toBe(0);
  });

  it('counts the outbox backlog and marks the consumers unknown while NATS is down, and recovers when it returns', async () => {
    await env.nats.stop();
    try {
      // Three changes commit while NATS is away: their events wait in the outbox.
      for (let i = 0; i < 3; i += 1) {
        await app.infra.prisma.$transaction((tx) => writeOutbox(tx, ArtistTrackCountChanged, { userId: 9000 + i, trackCount: i }));
      }
      const down = await waitFor(
        async () => {
          const current = await metrics();
          return (current.get('outbox_unpublished_events') ?? 0) >= 3 && (current.get('outbox_oldest_unpublished_age_seconds') ?? 0) > 0.5
            ? current
            : undefined;
        },
        { timeoutMs: 15_000 },
      );
      expect(down.get(`events_consumer_up{${PROJECTION}}`)).toBe(0);
      // The lag is unknown, not zero: no pending value is reported for a consumer that cannot be read.
      expect(down.has(`events_consumer_pending_messages{${PROJECTION}}`)).toBe(false);
    } finally {
      await env.nats.start();
    }
    const up = await waitFor(
      async () => {
        const current = await metrics();
        return current.get('outbox_unpublished_events') === 0 && current.get(`events_consumer_up{${PROJECTION}}`) === 1 ? current : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(up.get('outbox_oldest_unpublished_age_seconds')).toBe(0);
    expect(up.get(`events_consumer_pending_messages{${PROJECTION}}`)).toBe(0);
  });

  it('reports a burst as consumer lag until it is processed, and dead letters per consumer', async () => {
    const js = jetstream(app.infra.nc);
    // A payload that can never be handled goes to the DLQ at once.
    const bad = {
      ...createEnvelope(UserRegistered, {
        userId: 7001,
        username: 'dlq-user',
        displayName: 'x',
        avatarUrl: null,
        tier: 'FREE',
        role: 'LISTENER',
        isPrivate: false,
        createdAt: new Date().toISOString(),
      }),
      data: { userId: 'not a number' },
    };
    await js.publish(bad.type, JSON.stringify(bad), { msgID: bad.id });
    const burst = 200;
    await Promise.all(
      Array.from({ length: burst }, (_, i) => {
        const e = createEnvelope(UserRegistered, {
          userId: 7100 + i,
          username: `burst${i}`,
          displayName: `Burst ${i}`,
          avatarUrl: null,
          tier: 'FREE',
          role: 'LISTENER',
          isPrivate: false,
          createdAt: new Date().toISOString(),
        });
        return js.publish(e.type, JSON.stringify(e), { msgID: e.id });
      }),
    );
    // While the burst is consumed, some of it is still pending or unacknowledged.
    const during = await metrics();
    const lag = (during.get(`events_consumer_pending_messages{${PROJECTION}}`) ?? 0) + (during.get(`events_consumer_ack_pending_messages{${PROJECTION}}`) ?? 0);
    let last = new Map<string, number>();
    const after = await waitFor(
      async () => {
        const current = await metrics();
        last = current;
        // (ack_pending is not checked: a dead-lettered message is terminated with a reason, which
        // nats-server 2.9 does not take as an acknowledgement; 2.10 does.)
        const handled = await app.infra.prisma.userSummary.count({ where: { userId: { gte: 7100 } } });
        return handled === burst &&
          current.get(`events_consumer_pending_messages{${PROJECTION}}`) === 0 &&
          current.get(`events_dead_letter_messages{${PROJECTION}}`) === 1
          ? current
          : undefined;
      },
      { timeoutMs: 20_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify([...last].filter(([k]) => k.includes('consumer') || k.includes('dead')))}`);
    });
    expect(after.get(`events_dead_lettered_total{${PROJECTION},type="identity.user.registered.v1"}`)).toBe(1);
    // One event at a time, each in its own transaction: 200 take far longer than one scrape.
    expect(lag, 'lag right after the burst was stored').toBeGreaterThan(0);
  }, 60_000);
});
