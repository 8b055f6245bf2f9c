import type { Conversation } from '@msp/contracts';
import { DELETED_USER_ID } from '../users/unknown-user.js';
import { summaryFor, type UserRows } from '../users/user-rows.js';
import type { ConversationListRow } from './conversations.repository.js';

/** The Conversation record (docs/api.md) as seen by `callerId`, one of its two participants. */
export function toConversation(row: ConversationListRow, callerId: number, users: UserRows): Conversation {
  const summary = (userId: number | null) => summaryFor(users, userId, callerId);
  const otherId = row.userLowId === callerId ? row.userHighId : row.userLowId;
  const lastMessage =
    row.lastCreatedAt !== null
      ? { content: row.lastContent ?? '', senderId: row.lastSenderId ?? DELETED_USER_ID, createdAt: row.lastCreatedAt.toISOString() }
      : null;
  return {
    id: row.id,
    conversationId: row.id,
    participants: [summary(row.userLowId), summary(row.userHighId)],
    otherUser: summary(otherId),
    lastMessage,
    lastMessageAt: (row.lastMessageAt ?? row.lastCreatedAt)?.toISOString() ?? null,
    unreadCount: row.unreadCount,
    createdAt: row.createdAt.toISOString(),
  };
}
