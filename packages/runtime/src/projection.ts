import type { FastifyBaseLogger } from 'fastify';
import type { ServiceName } from '@msp/contracts';
import {
  ArtistTrackCountChanged,
  CountsRecounted,
  DurableConsumer,
  UserBanned,
  UserBlocked,
  UserFollowed,
  UserUnbanned,
  UserUnblocked,
  UserUnfollowed,
  type EventDefinition,
  type EventEnvelope,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import type { Logger } from './logger.js';

/**
 * Copies a service keeps of other services' data (docs/projections.md): a service
 * declares the events and the writes through its own repository (SQL stays in `*.repository.ts`);
 * this module owns the durable consumer: one transaction per event together with the record of its
 * id (a redelivery changes nothing), stream order (one message at a time), retries, dead letters and
 * the `events_consumed_total{consumer}` metric of `DurableConsumer`.
 */

/** One write of a projection for one event type; several steps of the same type run in their order. */
export interface ProjectionStep<Tx extends SqlExecutor> {
  def: EventDefinition<unknown>;
  apply: (data: unknown, tx: Tx, event: EventEnvelope<unknown>) => Promise<unknown>;
}

/** A step: `apply` runs in the consumer's transaction (`tx`) with the event's validated payload. */
export function onEvent<T, Tx extends SqlExecutor = SqlExecutor>(
  def: EventDefinition<T>,
  apply: (data: T, tx: Tx, event: EventEnvelope<T>) => Promise<unknown>,
): ProjectionStep<Tx> {
  return { def: def as EventDefinition<unknown>, apply: apply as ProjectionStep<Tx>['apply'] };
}

export interface ProjectionDeps<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger | FastifyBaseLogger;
}

export interface ProjectionSpec<Tx extends SqlExecutor> {
  /** The service keeping the copy; the durable consumer is `<service>--<name>`. */
  service: ServiceName;
  /** Kept as it is when a consumer moves here: a new name would replay the producer's stream. */
  name: string;
  /** The service whose events are copied. */
  from: ServiceName;
  steps: ReadonlyArray<ProjectionStep<Tx>>;
}

/** Registers the steps on a consumer, those of one event type in one handler (in their order). */
function register<Tx extends SqlExecutor>(consumer: DurableConsumer<Tx>, steps: ReadonlyArray<ProjectionStep<Tx>>): DurableConsumer<Tx> {
  const byType = new Map<string, ProjectionStep<Tx>[]>();
  for (const step of steps) byType.set(step.def.type, [...(byType.get(step.def.type) ?? []), step]);
  for (const group of byType.values()) {
    consumer.on(group[0]!.def, async (data, event, tx) => {
      for (const step of group) await step.apply(data, tx, event);
    });
  }
  return consumer;
}

/** Starts the projection's durable consumer now (for a service known only at run time). */
export async function startProjection<Tx extends SqlExecutor>(spec: ProjectionSpec<Tx>, deps: ProjectionDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = register(new DurableConsumer<Tx>({ ...deps, service: spec.service, name: spec.name, from: spec.from }), spec.steps);
  await consumer.start();
  return consumer;
}

/** A projection declared once; the function returned starts its durable consumer. */
export function defineProjection<TxIn extends SqlExecutor>(spec: ProjectionSpec<TxIn>) {
  return <Tx extends TxIn>(deps: ProjectionDeps<Tx>): Promise<DurableConsumer<Tx>> => startProjection<Tx>(spec as ProjectionSpec<Tx>, deps);
}

/** Writes of a copy of social's follows (R7: a block removes the follows both ways). */
export interface FollowsCopy<Tx extends SqlExecutor> {
  follow(tx: Tx, followerId: number, followeeId: number): Promise<void>;
  unfollow(tx: Tx, followerId: number, followeeId: number): Promise<void>;
  unfollowBothWays(tx: Tx, a: number, b: number): Promise<void>;
}

/** social.user.followed / unfollowed / blocked into a copy of the follows. */
export function followsCopy<Tx extends SqlExecutor>(copy: FollowsCopy<Tx>): ProjectionStep<Tx>[] {
  return [
    onEvent(UserFollowed, (d, tx: Tx) => copy.follow(tx, d.followerId, d.followeeId)),
    onEvent(UserUnfollowed, (d, tx: Tx) => copy.unfollow(tx, d.followerId, d.followeeId)),
    onEvent(UserBlocked, (d, tx: Tx) => copy.unfollowBothWays(tx, d.blockerId, d.blockedId)),
  ];
}

/** Writes of a copy of social's blocks; `at` is when the block was made (ISO 8601). */
export interface BlocksCopy<Tx extends SqlExecutor> {
  block(tx: Tx, blockerId: number, blockedId: number, at: string): Promise<void>;
  unblock(tx: Tx, blockerId: number, blockedId: number): Promise<void>;
}

/** social.user.blocked / unblocked into a copy of the blocks. */
export function blocksCopy<Tx extends SqlExecutor>(copy: BlocksCopy<Tx>): ProjectionStep<Tx>[] {
  return [
    onEvent(UserBlocked, (d, tx: Tx) => copy.block(tx, d.blockerId, d.blockedId, d.at)),
    onEvent(UserUnblocked, (d, tx: Tx) => copy.unblock(tx, d.blockerId, d.blockedId)),
  ];
}

/** A ban or unban as a copy receives it; `occurredAt` orders them where a copy keeps the latest (the SQL compares it). */
export interface BanChange {
  userId: number;
  /** Null on an unban. */
  reason: string | null;
  /** When the ban was made (ISO 8601); null on an unban. */
  bannedAt: string | null;
  occurredAt: string;
}

/** Writes of a copy of identity's bans (R14); `event` is the ban event (its correlation id for events the copy writes). */
export interface BansCopy<Tx extends SqlExecutor> {
  ban(tx: Tx, change: BanChange & { bannedAt: string }, event: EventEnvelope<unknown>): Promise<void>;
  unban(tx: Tx, change: BanChange, event: EventEnvelope<unknown>): Promise<void>;
}

/** identity.user.banned / unbanned into a copy of the bans. */
export function bansCopy<Tx extends SqlExecutor>(copy: BansCopy<Tx>): ProjectionStep<Tx>[] {
  return [
    onEvent(UserBanned, (d, tx: Tx, e) => copy.ban(tx, { userId: d.userId, reason: d.reason, bannedAt: d.bannedAt, occurredAt: e.occurredAt }, e)),
    onEvent(UserUnbanned, (d, tx: Tx, e) => copy.unban(tx, { userId: d.userId, reason: null, bannedAt: null, occurredAt: e.occurredAt }, e)),
  ];
}

/** A user's follow counts after a change; a count absent is left as it is. */
export interface FollowCounts {
  userId: number;
  followerCount?: number;
  followingCount?: number;
}

/**
 * Writes of a copy of social's follow counts. Social's events carry the counts after the change,
 * so the copy SETS them (a replay cannot drift them); one call per event.
 */
export interface FollowCountsCopy<Tx extends SqlExecutor> {
  setFollowCounts(tx: Tx, counts: ReadonlyArray<FollowCounts>): Promise<void>;
}

/** social.user.followed / unfollowed / blocked and social.counts.recounted (R14) into a copy of the follow counts. */
export function followCountsCopy<Tx extends SqlExecutor>(copy: FollowCountsCopy<Tx>): ProjectionStep<Tx>[] {
  const pair = (d: { followerId: number; followeeId: number; followerFollowingCount: number; followeeFollowerCount: number }): FollowCounts[] => [
    { userId: d.followerId, followingCount: d.followerFollowingCount },
    { userId: d.followeeId, followerCount: d.followeeFollowerCount },
  ];
  return [
    onEvent(UserFollowed, (d, tx: Tx) => copy.setFollowCounts(tx, pair(d))),
    onEvent(UserUnfollowed, (d, tx: Tx) => copy.setFollowCounts(tx, pair(d))),
    onEvent(UserBlocked, (d, tx: Tx) => copy.setFollowCounts(tx, d.counts)),
    onEvent(CountsRecounted, async (d, tx: Tx) => {
      if (d.users.length > 0) await copy.setFollowCounts(tx, d.users);
    }),
  ];
}

/** Writes of a copy of catalog's per-artist track count (set from the event's value). */
export interface TrackCountsCopy<Tx extends SqlExecutor> {
  setTrackCount(tx: Tx, userId: number, trackCount: number): Promise<void>;
}

/** catalog.artist.track-count-changed into a copy of the track counts. */
export function trackCountsCopy<Tx extends SqlExecutor>(copy: TrackCountsCopy<Tx>): ProjectionStep<Tx>[] {
  return [onEvent(ArtistTrackCountChanged, (d, tx: Tx) => copy.setTrackCount(tx, d.userId, d.trackCount))];
}
