import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  UserDeleted,
  UserRegistered,
  UserTierChanged,
  UserUpdated,
  type NatsConnection,
  type UserSnapshot,
} from '@msp/events';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

function snapshotData(s: UserSnapshot) {
  return {
    username: s.username,
    displayName: s.displayName,
    avatarUrl: s.avatarUrl,
    tier: s.tier,
  };
}

async function upsertSnapshot(tx: Prisma.TransactionClient, s: UserSnapshot) {
  // A username freed by a rename may still sit on another (stale) row: release it first.
  await tx.userSummary.updateMany({
    where: { username: s.username, NOT: { userId: s.userId } },
    data: { username: `~stale-${s.userId}-${Date.now()}` },
  });
  await tx.userSummary.upsert({
    where: { userId: s.userId },
    create: { userId: s.userId, ...snapshotData(s) },
    update: snapshotData(s),
  });
}

/** Keeps messaging's user summaries from identity's events (idempotent, ordered). */
export async function startUserProjection(nc: NatsConnection, prisma: PrismaClient, logger: FastifyBaseLogger) {
  const consumer = new DurableConsumer<Prisma.TransactionClient>({
    nc,
    db: prisma,
    logger,
    service: 'messaging',
    name: 'user-projection',
    from: 'identity',
  })
    .on(UserRegistered, (data, _e, tx) => upsertSnapshot(tx, data))
    .on(UserUpdated, (data, _e, tx) => upsertSnapshot(tx, data))
    .on(UserTierChanged, async (data, _e, tx) => {
      await tx.userSummary.updateMany({ where: { userId: data.userId }, data: { tier: data.tier } });
    })
    .on(UserDeleted, async (data, _e, tx) => {
      await tx.userSummary.updateMany({ where: { userId: data.userId }, data: { isDeleted: true } });
    });
  await consumer.start();
  return consumer;
}
