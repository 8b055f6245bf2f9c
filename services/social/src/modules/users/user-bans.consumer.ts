import { CountsRecounted, RECOUNT_CHUNK, writeOutbox, type EventEnvelope, type EventDefinition, type SqlExecutor } from '@msp/events';
import { bansCopy, defineProjection } from '@msp/runtime';
import { BanCountsRepository, type Recounted } from './ban-counts.repository.js';
import { UserBansRepository } from './user-bans.repository.js';

type CountsRecountedData = typeof CountsRecounted extends EventDefinition<infer T> ? T : never;

/**
 * R14: social's copy of identity's bans in `banned_users`. The lists and checks of `user-sql.ts`
 * (`notBannedSql`) hide a banned user's comments, likes, reposts, follows, feed items and content
 * from everyone but admins; the unban deletes the row, so everything comes back. When the row
 * really changed, every counter the user's rows contribute to is recounted in the same
 * transaction (`BanCountsRepository`) and the values go to the outbox as
 * `social.counts.recounted.v1` (chunks of RECOUNT_CHUNK), so catalog's track and playlist counts
 * and identity's profile counts follow. Idempotent both ways (a redelivered event changes nothing).
 */
async function setBanned(tx: SqlExecutor, userId: number, banned: boolean, at: string | null, event: EventEnvelope<unknown>): Promise<void> {
  const bans = new UserBansRepository();
  const changed = banned ? await bans.insert(tx, userId, at) : await bans.delete(tx, userId);
  if (!changed) return;
  await publishRecounted(tx, userId, banned ? 'USER_BANNED' : 'USER_UNBANNED', await new BanCountsRepository().recount(tx, userId), event);
}

export type RecountCause = CountsRecountedData['cause'];

/**
 * Sends recounted values as `social.counts.recounted.v1` events (chunks of RECOUNT_CHUNK) through
 * the outbox in the caller's transaction. Also used by the account deletion (deletion module).
 */
export async function publishRecounted(
  tx: SqlExecutor,
  userId: number | null,
  cause: RecountCause,
  { tracks, playlists, users }: Recounted,
  event: EventEnvelope<unknown>,
): Promise<void> {
  const chunks = Math.max(Math.ceil(tracks.length / RECOUNT_CHUNK), Math.ceil(playlists.length / RECOUNT_CHUNK), Math.ceil(users.length / RECOUNT_CHUNK));
  const now = new Date().toISOString();
  for (let i = 0; i < chunks; i++) {
    const part = <T>(list: T[]) => list.slice(i * RECOUNT_CHUNK, (i + 1) * RECOUNT_CHUNK);
    await writeOutbox(
      tx,
      CountsRecounted,
      { userId, cause, tracks: part(tracks), playlists: part(playlists), users: part(users), at: now },
      { correlationId: event.correlationId ?? event.id },
    );
  }
}

/** The durable `social--user-bans` consumer of identity's ban events. */
export const startUserBans = defineProjection({
  service: 'social',
  name: 'user-bans',
  from: 'identity',
  steps: bansCopy({
    ban: (tx: SqlExecutor, b, event) => setBanned(tx, b.userId, true, b.bannedAt, event),
    unban: (tx: SqlExecutor, b, event) => setBanned(tx, b.userId, false, null, event),
  }),
});
