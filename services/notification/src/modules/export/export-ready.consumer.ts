import { DurableConsumer, UserExportReady, type NatsConnection, type TransactionalClient } from '@msp/events';
import type { Logger } from '@msp/runtime';
import type { NotificationCreator } from '../activity/activity.consumers.js';

type Tx = Parameters<NotificationCreator['create']>[0];

/**
 * notification--export-ready: identity.user.export-ready.v1 becomes an EXPORT_READY notification to
 * the user (actor and resource: the user; the web app opens its export page, which reads ACC-2).
 * A platform notice: no preference holds it back; the 24-h dedup matches the one export per 24 h.
 */
export async function startExportReadyNotices(deps: { nc: NatsConnection; prisma: TransactionalClient<Tx>; logger: Logger; creator: NotificationCreator }) {
  const consumer = new DurableConsumer<Tx>({
    nc: deps.nc,
    db: deps.prisma,
    logger: deps.logger,
    service: 'notification',
    name: 'export-ready',
    from: 'identity',
  }).on(UserExportReady, async (d, envelope, tx) => {
    await deps.creator.create(
      tx,
      { recipientId: d.userId, actorId: d.userId, type: 'EXPORT_READY', resourceType: 'USER', resourceId: d.userId },
      new Date(envelope.occurredAt),
    );
  });
  await consumer.start();
  return consumer;
}
