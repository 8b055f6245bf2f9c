import { DurableConsumer, WebhookEndpointDisabled, type NatsConnection, type TransactionalClient } from '@msp/events';
import type { Logger } from '@msp/runtime';
import type { NotificationCreator } from '../activity/activity.consumers.js';

type Tx = Parameters<NotificationCreator['create']>[0];

/**
 * notification--webhook-disabled: notification.webhook.disabled.v1 (an endpoint failing for the
 * retry window, disabled by the dispatcher) becomes a WEBHOOK_DISABLED notification to the app's
 * owner (actor and resource: the owner; `targetTitle` the webhook's URL), which reaches the owner's
 * sockets and devices like any notification. A platform notice: no preference holds it back; the
 * 24-h dedup gives at most one a day (APP-19 lists every disabled webhook).
 */
export async function startWebhookDisabledNotices(deps: { nc: NatsConnection; prisma: TransactionalClient<Tx>; logger: Logger; creator: NotificationCreator }) {
  const consumer = new DurableConsumer<Tx>({
    nc: deps.nc,
    db: deps.prisma,
    logger: deps.logger,
    service: 'notification',
    name: 'webhook-disabled',
    from: 'notification',
  }).on(WebhookEndpointDisabled, async (d, envelope, tx) => {
    await deps.creator.create(
      tx,
      {
        recipientId: d.ownerId,
        actorId: d.ownerId,
        type: 'WEBHOOK_DISABLED',
        resourceType: 'USER',
        resourceId: d.ownerId,
        target: { title: d.url, url: null },
      },
      new Date(envelope.occurredAt),
    );
  });
  await consumer.start();
  return consumer;
}
