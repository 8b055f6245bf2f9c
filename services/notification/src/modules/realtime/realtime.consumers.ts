import type { FastifyBaseLogger } from 'fastify';
import { UploadStatusMessageSchema } from '@msp/contracts';
import { TrackUploadStatus, UserBanned, UserDeleted, UserDeletionScheduled, UserSuspended } from '@msp/events';
import type { Infrastructure } from '@msp/runtime';
import { trackStatusKey } from './destinations.js';
import { OrderedEventFeed } from './ordered-event.feed.js';
import type { SessionRegistry } from './session.registry.js';
import { LAST_STATUS_TTL_SECONDS, statusRank, type TrackStatusStore } from './track-status.store.js';

interface FeedDeps {
  js: Infrastructure<unknown>['js'];
  logger: FastifyBaseLogger;
  registry: SessionRegistry;
}

/**
 * WS-2 source: catalog's Upload status messages, seen by every replica in stream order. Each
 * replica writes the status to Redis for late subscribers (compare-and-set, so N replicas writing
 * the same status is harmless and an older one never replaces a newer one) and sends it to the
 * uploader's sockets it holds. A new replica starts 10 minutes back, which rebuilds the replay
 * cache if every replica was down.
 */
export async function startTrackStatusFeed(deps: FeedDeps & { store: TrackStatusStore }): Promise<OrderedEventFeed> {
  const feed = new OrderedEventFeed({
    js: deps.js,
    logger: deps.logger,
    from: 'catalog',
    start: { lookbackMs: LAST_STATUS_TTL_SECONDS * 1000 },
  }).on(TrackUploadStatus, async (data, envelope) => {
    const status = UploadStatusMessageSchema.safeParse(data.status);
    if (!status.success || status.data.uploadId.toLowerCase() !== data.uploadId.toLowerCase()) {
      // Retrying cannot fix a record that breaks the contract; clients must not receive it.
      deps.logger.error({ eventId: envelope.id, issues: status.error?.issues }, 'upload status event does not carry an Upload status message; skipped');
      return;
    }
    try {
      await deps.store.saveIfNewer(data.uploadId, data.artistId, status.data);
    } catch (err) {
      // Live delivery does not depend on the replay cache.
      deps.logger.warn({ err }, 'storing the last upload status failed');
    }
    deps.registry.deliver(data.artistId, trackStatusKey(data.uploadId), JSON.stringify(status.data), statusRank(status.data));
  });
  await feed.start();
  return feed;
}

/**
 * R14: a ban or a running suspension closes the user's websocket sessions, and so does an
 * account deletion (scheduled or done). Every replica sees
 * the events and closes the sockets it holds; only new events matter (sessions opened later are
 * refused at CONNECT by the revocation keys).
 */
export async function startSessionControlFeed(deps: FeedDeps): Promise<OrderedEventFeed> {
  const feed = new OrderedEventFeed({ js: deps.js, logger: deps.logger, from: 'identity', start: { newOnly: true } })
    .on(UserBanned, (data) => {
      deps.registry.closeUser(data.userId, { code: 'ACCOUNT_BANNED', message: 'This account is banned.' });
    })
    .on(UserSuspended, (data) => {
      if (data.suspendedUntil === null) return;
      const until = Date.parse(data.suspendedUntil);
      if (!Number.isNaN(until) && until <= Date.now()) return;
      const message = Number.isNaN(until) ? 'This account is suspended.' : `This account is suspended until ${new Date(until).toISOString()}.`;
      deps.registry.closeUser(data.userId, { code: 'ACCOUNT_SUSPENDED', message });
    })
    // ACC-3 / ACC-5: a scheduled or done deletion closes the user's sessions like a ban.
    .on(UserDeletionScheduled, (data) => {
      deps.registry.closeUser(data.userId, { code: 'ACCOUNT_PENDING_DELETION', message: 'This account is being deleted.' });
    })
    .on(UserDeleted, (data) => {
      deps.registry.closeUser(data.userId, { code: 'ACCOUNT_PENDING_DELETION', message: 'This account is being deleted.' });
    });
  await feed.start();
  return feed;
}
