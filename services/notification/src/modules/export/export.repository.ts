import { pages } from '@msp/runtime';
import type { SqlExecutor } from '@msp/events';

const PAGE = 500;

/**
 * Notification's part of an account export (ACC-1, docs/account-control.md "Export"): the user's
 * notifications (the actor by username and display name), preferences and registered devices (type
 * and date only: a push token is a credential).
 */
export class NotificationExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  sections(userId: number) {
    return {
      preferences: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRawUnsafe(
              `SELECT notify_on_follow AS "notifyOnFollow", notify_on_like AS "notifyOnLike", notify_on_repost AS "notifyOnRepost",
                      notify_on_comment AS "notifyOnComment", notify_on_dm AS "notifyOnDM"
                 FROM notification_preferences WHERE user_id = $1`,
              userId,
            ),
      ),
      devices: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRawUnsafe(`SELECT device_type AS "deviceType", created_at AS "createdAt" FROM device_tokens WHERE user_id = $1 ORDER BY id`, userId),
      ),
      notifications: pages<{ id: number }>((last) =>
        this.db.$queryRawUnsafe(
          `SELECT n.id, n.type, u.username AS "actorUsername", u.display_name AS "actorDisplayName", n.resource_type AS "resourceType",
                  n.resource_id AS "resourceId", n.target_title AS "targetTitle", n.target_url AS "targetUrl", n.is_read AS "isRead",
                  n.created_at AS "createdAt"
             FROM notifications n LEFT JOIN user_summaries u ON u.user_id = n.actor_id
            WHERE n.recipient_id = $1 AND n.id > $2 ORDER BY n.id LIMIT ${PAGE}`,
          userId,
          last?.id ?? 0,
        ),
      ),
    };
  }
}
