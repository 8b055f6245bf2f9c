import { sql, type Sql } from '@msp/db';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { presentIds, type UserRow } from '../users/user-rows.js';

export interface ConversationListRow {
  id: number;
  /** Null once that participant deleted their account (ACC-5). */
  userLowId: number | null;
  userHighId: number | null;
  lastMessageAt: Date | null;
  createdAt: Date;
  lastContent: string | null;
  lastSenderId: number | null;
  lastCreatedAt: Date | null;
  unreadCount: number;
}

/** The participant rows of one conversation. */
export interface ConversationRef {
  id: number;
  userLowId: number | null;
  userHighId: number | null;
}

type Db = PrismaClient | Prisma.TransactionClient;

/** What the conversation and message services need of this repository (unit tests give fakes). */
export type ConversationsStore = Pick<ConversationsRepository, 'listFor' | 'oneFor' | 'refFor' | 'startPair' | 'users' | 'reachableUser' | 'blocksBetween'>;

/** Conversations of `userId` whose partner is not banned (R14: they disappear for others). */
function mineAndVisible(userId: number): Sql {
  return sql`(c.user_low_id = ${userId} OR c.user_high_id = ${userId})
    AND NOT EXISTS (SELECT 1 FROM banned_users b
                     WHERE b.user_id = CASE WHEN c.user_low_id = ${userId} THEN c.user_high_id ELSE c.user_low_id END)`;
}

export class ConversationsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  private rows(userId: number, where: Sql, page: number, size: number) {
    return this.prisma.$queryRaw<ConversationListRow[]>`
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
           WHERE m.conversation_id = c.id AND m.sender_id IS DISTINCT FROM ${userId} AND m.read_at IS NULL
        ) unread
       WHERE ${where}
       ORDER BY COALESCE(c.last_message_at, c.created_at) DESC, c.id DESC
       LIMIT ${size} OFFSET ${page * size}`;
  }

  /**
   * One page of the user's conversations, latest activity (last message, else creation) first,
   * each with its last message and the count of the partner's messages the user has not read:
   * one query for the page, one for the total, whatever the page size.
   */
  async listFor(userId: number, page: number, size: number) {
    const rows = await this.rows(userId, mineAndVisible(userId), page, size);
    const [{ n: total } = { n: 0 }] = await this.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM conversations c WHERE ${mineAndVisible(userId)}`;
    return { rows, total };
  }

  /** One conversation as its participant `userId` lists it; null when not theirs or hidden. */
  async oneFor(userId: number, conversationId: number): Promise<ConversationListRow | null> {
    const [row] = await this.rows(userId, sql`c.id = ${conversationId} AND ${mineAndVisible(userId)}`, 0, 1);
    return row ?? null;
  }

  /** The conversation when `userId` takes part in it and its partner is not banned. */
  async refFor(userId: number, conversationId: number): Promise<ConversationRef | null> {
    const [row] = await this.prisma.$queryRaw<ConversationRef[]>`
      SELECT c.id, c.user_low_id AS "userLowId", c.user_high_id AS "userHighId"
        FROM conversations c WHERE c.id = ${conversationId} AND ${mineAndVisible(userId)}`;
    return row ?? null;
  }

  /**
   * R16 one conversation per pair, even under concurrent starts: the insert relies on the unique
   * (user_low_id, user_high_id) index, never on a prior check. `created` is false when it existed.
   */
  async startPair(a: number, b: number): Promise<{ id: number; created: boolean }> {
    const [low, high] = a < b ? [a, b] : [b, a];
    const inserted = await this.prisma.$queryRaw<Array<{ id: number }>>`
      INSERT INTO conversations (user_low_id, user_high_id, created_at) VALUES (${low}, ${high}, now())
      ON CONFLICT (user_low_id, user_high_id) DO NOTHING RETURNING id`;
    if (inserted[0]) return { id: inserted[0].id, created: true };
    const existing = await this.prisma.conversation.findUniqueOrThrow({
      where: { userLowId_userHighId: { userLowId: low, userHighId: high } },
      select: { id: true },
    });
    return { id: existing.id, created: false };
  }

  /** The summaries of the given users, and which of `viewerIds` follow each, in one query. */
  async users(ids: ReadonlyArray<number | null>, viewerIds: readonly number[], db: Db = this.prisma): Promise<Map<number, UserRow>> {
    // A deleted participant (null, ACC-5) has no row: summaryFor shows "Deleted user".
    const userIds = presentIds(ids);
    if (userIds.length === 0) return new Map();
    const rows = await db.$queryRaw<UserRow[]>`
      SELECT u.user_id AS "userId", u.username, u.display_name AS "displayName", u.avatar_url AS "avatarUrl", u.tier,
             u.follower_count AS "followerCount", u.track_count AS "trackCount",
             ARRAY(SELECT f.follower_id FROM follows f
                    WHERE f.followee_id = u.user_id AND f.follower_id = ANY(${[...new Set(viewerIds)]}::int[])) AS "followedBy"
        FROM user_summaries u WHERE u.user_id = ANY(${[...new Set(userIds)]}::int[])`;
    return new Map(rows.map((row) => [row.userId, row]));
  }

  /** A user who can be messaged: known to the projection, not deleted, not banned. */
  async reachableUser(userId: number): Promise<boolean> {
    const [row] = await this.prisma.$queryRaw<Array<{ ok: boolean }>>`
      SELECT true AS ok FROM user_summaries u
       WHERE u.user_id = ${userId} AND NOT u.is_deleted
         AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = u.user_id)`;
    return row?.ok === true;
  }

  /** Who blocked whom between the two users (R7), from messaging's copy of social's blocks. */
  async blocksBetween(a: number, b: number): Promise<{ aBlockedB: boolean; bBlockedA: boolean }> {
    const rows = await this.prisma.block.findMany({
      where: {
        OR: [
          { blockerId: a, blockedId: b },
          { blockerId: b, blockedId: a },
        ],
      },
      select: { blockerId: true },
    });
    return { aBlockedB: rows.some((r) => r.blockerId === a), bBlockedA: rows.some((r) => r.blockerId === b) };
  }
}
