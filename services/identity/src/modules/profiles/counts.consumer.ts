import type { DurableConsumer, NatsConnection, SqlExecutor, TransactionalClient } from '@msp/events';
import { defineProjection, followCountsCopy, trackCountsCopy, type Logger } from '@msp/runtime';
import { profileStatsRepository as stats } from './profile-stats.repository.js';

/**
 * The profile stats identity shows (USR-14/15) are copies of social's and catalog's counts. Their
 * events carry the counts after the change, so the copies SET them (replays cannot drift); social's
 * recount on a ban or unban (R14) comes as values too.
 */
const followCounts = defineProjection({ service: 'identity', name: 'profile-counts', from: 'social', steps: followCountsCopy(stats) });
const trackCounts = defineProjection({ service: 'identity', name: 'track-counts', from: 'catalog', steps: trackCountsCopy(stats) });

export async function startCountConsumers<Tx extends SqlExecutor>(deps: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
}): Promise<Array<DurableConsumer<Tx>>> {
  return [await followCounts(deps), await trackCounts(deps)];
}
