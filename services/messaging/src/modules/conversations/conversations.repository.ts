import type { PrismaClient } from '../../generated/prisma/client.js';
import { userSummarySourceSelect, type UserSummarySource } from '@msp/contracts';

export interface ConversationListRow {
  id: number;
  userLowId: number;
  userHighId: number;
  lastMessageAt: Date | null;
  createdAt: Date;
  lastContent: string | null;
  lastSenderId: number | null;
  lastCreatedAt: Date | null;
  unreadCount: number;
}

export class ConversationsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * One page of the user's conversations, latest activity (last message, else creation) first,
   * each with its last message and the count of the partner's messages the user has not read:
   * one query for the page, one for the total, whatever the page size.
   */
  async listFor(userId: number, page: number, size: number) {
    const rows = await this.prisma.$queryRaw<ConversationListRow[]>`
      SELECT c.id, c.user_low_id AS "userLowId", c.user_high_id AS "userHighId",
             c.last_message_at AS "lastMessageAt", c.created_at AS "createdAt",
             lm.content AS "lastContent", lm.sender_id AS "lastSenderId", lm.created_at AS "lastCreatedAt",
             unread.n AS "unreadCount"
        FROM conversations c
        LEFT JOIN LATERAL (
          SELECT m.content, m.sender_id, m.created_at FROM messages m
           WHERE m.conversation_id = c.id
           ORDER BY m.created_at DESC, m.id DESC
           LIMIT 1
        ) lm ON true
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS n FROM messages m
           WHERE m.conversation_id = c.id AND m.sender_id <> ${userId} AND m.read_at IS NULL
        ) unread
       WHERE c.user_low_id = ${userId} OR c.user_high_id = ${userId}
       ORDER BY COALESCE(c.last_message_at, c.created_at) DESC, c.id DESC
       LIMIT ${size} OFFSET ${page * size}`;
    const total = await this.prisma.conversation.count({
      where: { OR: [{ userLowId: userId }, { userHighId: userId }] },
    });
    return { rows, total };
  }

  /** The summaries of the given users, in one query. */
  async users(userIds: readonly number[]): Promise<Map<number, UserSummarySource>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.prisma.userSummary.findMany({
      where: { userId: { in: [...new Set(userIds)] } },
      select: userSummarySourceSelect,
    });
    return new Map(rows.map((row) => [row.userId, row]));
  }
}
