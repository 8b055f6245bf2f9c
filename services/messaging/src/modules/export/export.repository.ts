import { pages } from '@msp/runtime';
import { sql, type SqlExecutor } from '@msp/db';

const PAGE = 500;

/**
 * Messaging's part of an account export (ACC-1, docs/account-control.md "Export"): the user's
 * conversations and every message in them, in keyset pages. The other party appears by display name
 * only (no id, no username); each message says whether the user sent it.
 */
export class MessagingExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  sections(userId: number) {
    return {
      messages: pages<{ id: number }>((last) =>
        this.db.$queryRaw(
          sql`SELECT m.id, m.conversation_id AS "conversationId", COALESCE(u.display_name, 'Deleted user') AS "otherParty",
                  m.sender_id = ${userId} AS "sentByMe", m.content, m.resources, m.created_at AS "createdAt", m.read_at AS "readAt"
             FROM messages m
             JOIN conversations c ON c.id = m.conversation_id
             LEFT JOIN user_summaries u ON u.user_id = CASE WHEN c.user_low_id = ${userId} THEN c.user_high_id ELSE c.user_low_id END
            WHERE (c.user_low_id = ${userId} OR c.user_high_id = ${userId}) AND m.id > ${last?.id ?? 0}
            ORDER BY m.id LIMIT ${PAGE}`,
        ),
      ),
    };
  }
}
