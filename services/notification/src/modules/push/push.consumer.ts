import { DurableConsumer, NotificationCreated, type NatsConnection, type TransactionalClient } from '@msp/events';
import type { Logger } from '@msp/runtime';
import type { DeviceTokensRepository } from './device-tokens.repository.js';
import { parseWebSubscription, type EndpointPolicy, type MobilePushProvider, type PushOutcome, type WebPushSender } from './push.providers.js';

interface Deps {
  nc: NatsConnection;
  prisma: TransactionalClient;
  tokens: Pick<DeviceTokensRepository, 'forUser' | 'removeRejected'>;
  logger: Logger;
  web: WebPushSender;
  /** null: no provider configured, provider tokens are kept but not pushed. */
  mobile: MobilePushProvider | null;
  concurrency: number;
  endpoints: EndpointPolicy;
}

/**
 * R15 push: every stored notification is pushed to the recipient's device tokens by this consumer,
 * long after the request that caused it answered (it cannot delay or fail it). The HTTP calls run
 * outside any database transaction; a token the push service rejects (404/410) is deleted; other
 * failures are logged and not retried, so no device gets the same notification twice.
 */
export async function startPushConsumer(deps: Deps): Promise<{ stop(): Promise<void> }> {
  const consumer = new DurableConsumer({
    nc: deps.nc,
    db: deps.prisma,
    logger: deps.logger,
    service: 'notification',
    name: 'push',
    from: 'notification',
    concurrency: deps.concurrency,
  }).onLongRunning(NotificationCreated, async (d) => {
    const tokens = await deps.tokens.forUser(d.recipientId);
    if (tokens.length === 0) return;
    const payload = JSON.stringify({ event: 'NOTIFICATION_CREATED', notification: d.notification, unreadCount: d.unreadCount });
    await Promise.all(
      tokens.map(async (t) => {
        let outcome: PushOutcome;
        // The transport was decided at registration: a WEB token may be a PushSubscription or a
        // provider (FCM) registration token.
        if (t.transport === 'WEB_PUSH') {
          const subscription = parseWebSubscription(t.token, deps.endpoints);
          outcome = subscription ? await deps.web.send(subscription, payload) : 'gone';
        } else if (deps.mobile) {
          outcome = await deps.mobile.send(t.token, t.deviceType, payload);
        } else {
          return;
        }
        if (outcome === 'gone') {
          // Only this registration: if the token moved meanwhile, the new owner keeps it.
          await deps.tokens.removeRejected(t.id, d.recipientId);
          deps.logger.info({ tokenId: t.id }, 'push token rejected by the push service; removed');
        } else if (outcome === 'failed') {
          deps.logger.warn({ tokenId: t.id }, 'push not delivered');
        }
      }),
    );
  });
  await consumer.start();
  return consumer;
}
