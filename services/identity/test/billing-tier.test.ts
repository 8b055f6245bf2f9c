import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, SubscriptionTierChanged } from '@msp/events';
import { waitFor } from '@msp/testing';
import { startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_billing_tier');
});

afterAll(async () => {
  await h?.close();
});

async function publishTier(userId: number, tier: 'FREE' | 'PRO', version: number) {
  const status = tier === 'PRO' ? 'active' : 'cancelled';
  const envelope = createEnvelope(SubscriptionTierChanged, { userId, tier, status, version, currentPeriodEnd: null });
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  return envelope;
}

async function refresh(refreshToken: string) {
  const res = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', headers: { 'x-refresh-token-delivery': 'body' }, payload: { refreshToken } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { accessToken: string; refreshToken: string; user: { tier: string } };
}

const tierOf = async (userId: number) => (await h.app.infra.prisma.user.findUniqueOrThrow({ where: { id: userId }, select: { tier: true } })).tier;
const announced = async (userId: number) =>
  (await h.app.infra.prisma.outboxEvent.findMany({ where: { type: 'identity.user.tier-changed.v1' }, orderBy: { seq: 'asc' } }))
    .map((e) => (e.payload as { data: { userId: number; tier: string } }).data)
    .filter((d) => d.userId === userId)
    .map((d) => d.tier);

describe('billing.subscription.tier-changed.v1 (R17: tier from billing)', () => {
  it('stores the tier, announces identity.user.tier-changed.v1, and the next AUTH-2 token carries it', async () => {
    const u = await verifiedUser(h, 'tia@example.com', 'Tia');
    await publishTier(u.userId, 'PRO', 1);
    await waitFor(async () => (await tierOf(u.userId)) === 'PRO', { message: 'tier not stored' });
    expect(await announced(u.userId)).toEqual(['PRO']);
    const renewed = await refresh(u.refreshToken);
    expect(renewed.user.tier).toBe('PRO');
    expect(decodeJwt(renewed.accessToken).tier).toBe('PRO');

    await publishTier(u.userId, 'FREE', 2);
    await waitFor(async () => (await tierOf(u.userId)) === 'FREE');
    expect(await announced(u.userId)).toEqual(['PRO', 'FREE']);
    expect(decodeJwt((await refresh(renewed.refreshToken)).accessToken).tier).toBe('FREE');
  });

  it('skips a change older than the last one applied (redelivered out of order)', async () => {
    const u = await verifiedUser(h, 'ugo@example.com', 'Ugo');
    await publishTier(u.userId, 'PRO', 3);
    await waitFor(async () => (await tierOf(u.userId)) === 'PRO');
    const older = await publishTier(u.userId, 'FREE', 2);
    await waitFor(async () => (await h.app.infra.prisma.processedEvent.count({ where: { eventId: older.id } })) === 1, { message: 'older event not consumed' });
    expect(await tierOf(u.userId)).toBe('PRO');
    expect(await announced(u.userId)).toEqual(['PRO']);
  });
});
