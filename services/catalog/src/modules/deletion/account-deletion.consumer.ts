import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { DurableConsumer, UserDeleted, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { removeInBatches } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import type { HistoryIndex } from '../tracks/history-index.js';
import type { AccountDeletionRepository } from './account-deletion.repository.js';

/** Tracks (and their objects) per step, and playlists per step. */
const TRACK_BATCH = 25;
const PLAYLIST_BATCH = 20;

export interface AccountDeletionDeps {
  repo: AccountDeletionRepository;
  storage: Pick<ObjectStorage, 'list' | 'remove'>;
  redis: Redis;
  historyIndex: Pick<HistoryIndex, 'forget'>;
  logger: Pick<FastifyBaseLogger, 'info' | 'debug' | 'warn'>;
  /** How long to wait for the user projection to take the deletion before failing (redelivered later). */
  projectionWaitMs?: number;
}

/**
 * Removes everything catalog holds of a deleted user (docs/account-control.md, "Catalog"), in
 * steps of at most a few hundred rows each committed on its own. Restart-safe and idempotent:
 * every step deletes what is still there, objects go before the rows naming them, and the
 * user's summary row (which keeps the rest hidden, `is_deleted`) goes last.
 */
export async function deleteUserFromCatalog(deps: AccountDeletionDeps, userId: number): Promise<void> {
  const { repo, storage } = deps;
  // The projection (another durable consumer of the same stream) may lag: wait until it has the
  // deletion, so a profile event it has yet to apply cannot bring the summary row back afterwards.
  const deadline = Date.now() + (deps.projectionWaitMs ?? 30_000);
  while (!(await repo.projectionHasDeletion(userId))) {
    if (Date.now() > deadline) throw new Error(`user projection has not taken the deletion of user ${userId} yet`);
    await sleep(200);
  }
  const words = await repo.nameWords(userId);
  // Published events naming the user (upload status events carry their Track record, with the
  // username) first: the track and playlist deletions below write events of their own.
  await repo.deletePublishedEventsOf(userId);
  // The artist's side of the play log first: its rows are found by artist, not by track.
  await repo.deletePlaysOfArtist(userId);
  const removal = (name: string) => ({ name: `catalog.${name}`, logger: deps.logger, context: { userId } });
  await removeInBatches(async () => {
    const tracks = await repo.nextTracks(userId, TRACK_BATCH);
    if (tracks.length === 0) return 0;
    const ids = tracks.map((t) => t.id);
    await repo.deleteTrackDependents(ids);
    // Objects before the rows that name them: a crash here leaves rows that the retry finds again.
    const keys = tracks.flatMap((t) => t.keys);
    for (const id of ids) keys.push(...(await storage.list(`tracks/${id}/`)));
    for (let i = 0; i < keys.length; i += 1000) await storage.remove(keys.slice(i, i + 1000));
    await repo.deleteTracks(userId, ids);
    return ids.length;
  }, removal('tracks'));
  await removeInBatches(async () => {
    const playlists = await repo.nextPlaylists(userId, PLAYLIST_BATCH);
    if (playlists.length === 0) return 0;
    await storage.remove(playlists.map((p) => p.coverKey).filter((k): k is string => !!k));
    await repo.deletePlaylists(
      userId,
      playlists.map((p) => p.id),
    );
    return playlists.length;
  }, removal('playlists'));
  await repo.deleteEngagementsOf(userId);
  await repo.anonymiseListenerPlays(userId);
  await repo.deleteUserKeyedRows(userId);
  await deleteRedisKeys(deps, userId);
  await repo.deleteSummary(userId, words);
  deps.logger.info({ userId }, 'account deleted from catalog');
}

/**
 * The listener's Redis keys: the USR-17 history outline and the play-counting windows and R9
 * de-duplication keys (`catalog:…:u<id>`; all expire within hours anyway).
 */
async function deleteRedisKeys(deps: AccountDeletionDeps, userId: number): Promise<void> {
  await deps.historyIndex.forget(userId);
  // SCAN neither applies ioredis' keyPrefix (REDIS_KEY_PREFIX) to its pattern nor strips it from
  // the keys it answers, while DEL adds it: match with it, delete without it.
  const prefix = deps.redis.options.keyPrefix ?? '';
  let cursor = '0';
  do {
    const [next, keys] = await deps.redis.scan(cursor, 'MATCH', `${prefix}catalog:*:u${userId}`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await deps.redis.del(...keys.map((k) => k.slice(prefix.length)));
  } while (cursor !== '0');
}

/**
 * Starts the durable `catalog--account-deletion` consumer of identity's `UserDeleted`. The work
 * runs outside one transaction (a long-running handler: kept in progress by heartbeats, redelivered
 * after a crash, recorded as processed only once it finished).
 */
export async function startAccountDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  repo: AccountDeletionRepository;
  logger: FastifyBaseLogger;
  storage: ObjectStorage;
  redis: Redis;
  historyIndex: HistoryIndex;
}): Promise<DurableConsumer<Tx>> {
  const deps: AccountDeletionDeps = {
    repo: options.repo,
    storage: options.storage,
    redis: options.redis,
    historyIndex: options.historyIndex,
    logger: options.logger,
  };
  const consumer = new DurableConsumer<Tx>({
    nc: options.nc,
    db: options.db,
    logger: options.logger,
    service: 'catalog',
    name: 'account-deletion',
    from: 'identity',
  }).onLongRunning(UserDeleted, (d) => deleteUserFromCatalog(deps, d.userId));
  await consumer.start();
  return consumer;
}
