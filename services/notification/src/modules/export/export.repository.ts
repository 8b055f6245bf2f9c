import { pages } from '@msp/runtime';
import { sql, type SqlExecutor } from '@msp/db';

const PAGE = 500;

/**
 * Notification's part of an account export (ACC-1, docs/account-control.md "Export"): the user's
 * notifications (the actor by username and display name), preferences, registered devices (type
 * and date only: a push token is a credential), and the webhooks of the user's apps with their
 * delivery log (APP-19, APP-21: never a webhook's secret).
 */
export class NotificationExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  sections(userId: number) {
    return {
      preferences: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRaw(
              sql`SELECT notify_on_follow AS "notifyOnFollow", notify_on_like AS "notifyOnLike", notify_on_repost AS "notifyOnRepost",
                      notify_on_comment AS "notifyOnComment", notify_on_dm AS "notifyOnDM"
                 FROM notification_preferences WHERE user_id = ${userId}`,
            ),
      ),
      devices: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRaw(sql`SELECT device_type AS "deviceType", created_at AS "createdAt" FROM device_tokens WHERE user_id = ${userId} ORDER BY id`),
      ),
      notifications: pages<{ id: number }>((last) =>
        this.db.$queryRaw(
          sql`SELECT n.id, n.type, u.username AS "actorUsername", u.display_name AS "actorDisplayName", n.resource_type AS "resourceType",
                  n.resource_id AS "resourceId", n.target_title AS "targetTitle", n.target_url AS "targetUrl", n.is_read AS "isRead",
                  n.created_at AS "createdAt"
             FROM notifications n LEFT JOIN user_summaries u ON u.user_id = n.actor_id
            WHERE n.recipient_id = ${userId} AND n.id > ${last?.id ?? 0} ORDER BY n.id LIMIT ${PAGE}`,
        ),
      ),
      webhooks: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRaw(
              sql`SELECT id, app_id AS "appId", url, events, status, failing_since AS "failingSince", disabled_at AS "disabledAt", created_at AS "createdAt"
                 FROM webhook_endpoints WHERE owner_id = ${userId} ORDER BY id`,
            ),
      ),
      webhookDeliveries: pages<{ seq: string }>((last) =>
        this.db.$queryRaw(
          sql`SELECT d.seq::text AS seq, d.id, d.endpoint_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.body, d.status,
                  d.attempts, d.response_code AS "responseCode", d.latency_ms AS "latencyMs", d.last_error AS "lastError",
                  d.redelivery_of AS "redeliveryOf", d.created_at AS "createdAt", d.delivered_at AS "deliveredAt"
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE e.owner_id = ${userId} AND d.seq > ${last?.seq ?? '0'}::bigint ORDER BY d.seq LIMIT ${PAGE}`,
        ),
      ),
    };
  }
}
