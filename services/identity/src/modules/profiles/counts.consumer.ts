import {
  ArtistTrackCountChanged,
  CountsRecounted,
  DurableConsumer,
  UserBlocked,
  UserFollowed,
  UserUnfollowed,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import type { Logger } from '@msp/runtime';
import { profileStatsRepository as stats } from './profile-stats.repository.js';

/**
 * The profile stats identity shows (USR-14/15) are copies of social's and catalog's counts. Their
 * events carry the counts after the change, so the handlers SET them (replays cannot drift).
 */
export async function startCountConsumers<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
}): Promise<Array<DurableConsumer<Tx>>> {
  const setFollowCounts = async (tx: Tx, followerId: number, followingCount: number, followeeId: number, followerCount: number) => {
    await stats.setFollowingCount(tx, followerId, followingCount);
    await stats.setFollowerCount(tx, followeeId, followerCount);
  };
  const social = new DurableConsumer<Tx>({ ...options, service: 'identity', name: 'profile-counts', from: 'social' })
    .on(UserFollowed, (d, _e, tx) => setFollowCounts(tx, d.followerId, d.followerFollowingCount, d.followeeId, d.followeeFollowerCount))
    .on(UserUnfollowed, (d, _e, tx) => setFollowCounts(tx, d.followerId, d.followerFollowingCount, d.followeeId, d.followeeFollowerCount))
    .on(UserBlocked, async (d, _e, tx) => {
      for (const c of d.counts) {
        await stats.setFollowCounts(tx, c.userId, c.followerCount, c.followingCount);
      }
    })
    // R14: social recounted on a ban or unban (a banned user's follows do not count).
    .on(CountsRecounted, async (d, _e, tx) => {
      await stats.setFollowCountsOfMany(tx, d.users);
    });
  const catalog = new DurableConsumer<Tx>({ ...options, service: 'identity', name: 'track-counts', from: 'catalog' }).on(ArtistTrackCountChanged, (d, _e, tx) =>
    stats.setTrackCount(tx, d.userId, d.trackCount),
  );
  await social.start();
  await catalog.start();
  return [social, catalog];
}
