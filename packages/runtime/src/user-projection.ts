import type { FastifyBaseLogger } from 'fastify';
import { sql } from '@msp/db';
import type { ServiceName } from '@msp/contracts';
import {
  UserDeleted,
  UserDeletionCancelled,
  UserDeletionScheduled,
  UserRegistered,
  UserTierChanged,
  UserUpdated,
  type DurableConsumer,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
  type UserSnapshot,
} from '@msp/events';
import { followCountsCopy, onEvent, startProjection, trackCountsCopy, type FollowCounts, type FollowCountsCopy, type TrackCountsCopy } from './projection.js';

/**
 * The copy of identity's users that catalog, social, messaging (and later notification) keep to
 * render User summaries without calling identity. Each of those services has a `user_summaries`
 * table with these columns (Prisma model `UserSummary`); counts on it are the owning service's own.
 */
async function upsertSnapshot(tx: SqlExecutor, s: UserSnapshot): Promise<void> {
  // A username freed by a rename may still sit on a stale row: release it first (unique index).
  await tx.$executeRaw(
    sql`UPDATE user_summaries SET username = '~stale-' || user_id || '-' || ${Date.now()}
         WHERE username = ${s.username} AND user_id <> ${s.userId}`,
  );
  // Older events do not carry showHistory: keep what is stored.
  const showHistory = s.showHistory ?? null;
  await tx.$executeRaw(
    sql`INSERT INTO user_summaries (user_id, username, display_name, avatar_url, tier, role, is_private, show_history, updated_at)
        VALUES (${s.userId}, ${s.username}, ${s.displayName}, ${s.avatarUrl}, ${s.tier}, ${s.role}, ${s.isPrivate},
                COALESCE(${showHistory}::boolean, true), now())
        ON CONFLICT (user_id) DO UPDATE SET username = EXCLUDED.username, display_name = EXCLUDED.display_name,
          avatar_url = EXCLUDED.avatar_url, tier = EXCLUDED.tier, role = EXCLUDED.role,
          is_private = EXCLUDED.is_private,
          show_history = COALESCE(${showHistory}::boolean, user_summaries.show_history), updated_at = now()`,
  );
}

/**
 * Starts the durable `<service>--user-projection` consumer of identity's user events.
 *
 * Account deletion (docs/account-control.md): `UserDeletionScheduled` (ACC-3, ACC-5) sets
 * `is_deleted` (the user's content is hidden as for a ban), `UserDeletionCancelled` (ACC-4) clears
 * it (a ban stays in `is_banned`), and `UserDeleted` deletes the row. A service whose own
 * `UserDeleted` consumer removes the user's content in batches passes `keepDeletedRow: true`: the
 * projection then only sets `is_deleted` and that consumer deletes the row last, so content not yet
 * removed stays hidden meanwhile (a hidden-owner check that reads the row would otherwise see no
 * owner and show it).
 */
export async function startUserProjection<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
  service: ServiceName;
  keepDeletedRow?: boolean;
}): Promise<DurableConsumer<Tx>> {
  const setDeleted = (tx: Tx, userId: number, deleted: boolean) =>
    tx.$executeRaw(sql`UPDATE user_summaries SET is_deleted = ${deleted}, updated_at = now() WHERE user_id = ${userId}`);
  return startProjection<Tx>(
    {
      service: options.service,
      name: 'user-projection',
      from: 'identity',
      steps: [
        onEvent(UserRegistered, (d, tx: Tx) => upsertSnapshot(tx, d)),
        onEvent(UserUpdated, (d, tx: Tx) => upsertSnapshot(tx, d)),
        onEvent(UserTierChanged, (d, tx: Tx) =>
          tx.$executeRaw(sql`UPDATE user_summaries SET tier = ${d.tier}, updated_at = now() WHERE user_id = ${d.userId}`),
        ),
        onEvent(UserDeletionScheduled, (d, tx: Tx) => setDeleted(tx, d.userId, true)),
        onEvent(UserDeletionCancelled, (d, tx: Tx) => setDeleted(tx, d.userId, false)),
        onEvent(UserDeleted, (d, tx: Tx) =>
          options.keepDeletedRow ? setDeleted(tx, d.userId, true) : tx.$executeRaw(sql`DELETE FROM user_summaries WHERE user_id = ${d.userId}`),
        ),
      ],
    },
    options,
  );
}

/** The follower counts of `user_summaries` (it keeps no following count), one statement per event. */
const summaryFollowerCounts: FollowCountsCopy<SqlExecutor> = {
  async setFollowCounts(tx, counts) {
    const known = counts.filter((c): c is FollowCounts & { followerCount: number } => c.followerCount !== undefined);
    if (known.length === 0) return;
    await tx.$executeRaw(
      sql`UPDATE user_summaries s SET follower_count = c.n
            FROM unnest(${known.map((c) => c.userId)}::int[], ${known.map((c) => c.followerCount)}::int[]) AS c(id, n)
           WHERE s.user_id = c.id AND s.follower_count <> c.n`,
    );
  },
};

const summaryTrackCounts: TrackCountsCopy<SqlExecutor> = {
  async setTrackCount(tx, userId, trackCount) {
    await tx.$executeRaw(sql`UPDATE user_summaries SET track_count = ${trackCount} WHERE user_id = ${userId} AND track_count <> ${trackCount}`);
  },
};

/**
 * The counts on a User summary that other services own: `followerCount` (social) and `trackCount`
 * (catalog), kept on this service's `user_summaries` copy from the events that carry them as values
 * (set, never incremented, so redelivery cannot drift them). Durable consumers
 * `<service>--user-follower-counts` (from social) and `<service>--user-track-counts` (from catalog);
 * the owner of a count does not start its own.
 */
export async function startUserCountProjections<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
  service: ServiceName;
  followerCounts: boolean;
  trackCounts: boolean;
}): Promise<{ stop(): Promise<void> }> {
  const consumers: DurableConsumer<Tx>[] = [];
  const { service } = options;
  if (options.followerCounts) {
    consumers.push(
      await startProjection<Tx>({ service, name: 'user-follower-counts', from: 'social', steps: followCountsCopy(summaryFollowerCounts) }, options),
    );
  }
  if (options.trackCounts) {
    consumers.push(await startProjection<Tx>({ service, name: 'user-track-counts', from: 'catalog', steps: trackCountsCopy(summaryTrackCounts) }, options));
  }
  return {
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
