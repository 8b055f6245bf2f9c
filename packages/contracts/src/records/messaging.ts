import { z } from 'zod';

import { MessageResourceTypeSchema } from '../enums.js';
import { PlaylistSchema } from './playlists.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';
import { TrackSummarySchema } from './tracks.js';
import { UserSummarySchema } from './users.js';

export const LastMessageSchema = z.object({
  content: z.string(),
  senderId: IdSchema,
  createdAt: DateTimeSchema,
});
export type LastMessage = z.infer<typeof LastMessageSchema>;

export const ConversationSchema = z.object({
  id: IdSchema,
  /** Same as id. */
  conversationId: IdSchema,
  participants: z.array(UserSummarySchema).length(2),
  /** The participant who is not the caller. */
  otherUser: UserSummarySchema,
  lastMessage: LastMessageSchema.nullable(),
  lastMessageAt: DateTimeSchema.nullable(),
  /** Messages from the other user not yet read by the caller. */
  unreadCount: CountSchema,
  createdAt: DateTimeSchema,
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const MessageResourceSchema = z.object({
  resourceType: MessageResourceTypeSchema,
  resourceId: IdSchema,
  /** Null when not visible to the reader. */
  track: TrackSummarySchema.nullable(),
  playlist: PlaylistSchema.nullable(),
});
export type MessageResource = z.infer<typeof MessageResourceSchema>;

export const MessageSchema = z.object({
  id: IdSchema,
  /** Same as id. */
  messageId: IdSchema,
  conversationId: IdSchema,
  senderId: IdSchema,
  sender: UserSummarySchema,
  /** May be "" when resources are attached. */
  content: z.string(),
  resources: z.array(MessageResourceSchema).max(5),
  /** The first resource, else null. */
  resourceType: MessageResourceTypeSchema.nullable(),
  resourceId: IdSchema.nullable(),
  /** Read by the recipient. */
  isRead: z.boolean(),
  createdAt: DateTimeSchema,
});
export type Message = z.infer<typeof MessageSchema>;

/** WS-4 payload. */
export const MessageEventSchema = z.object({
  event: z.enum(['MESSAGE_CREATED', 'MESSAGES_READ']),
  conversationId: IdSchema,
  message: MessageSchema.nullable(),
  readerId: IdSchema.nullable(),
  readAt: DateTimeSchema.nullable(),
});
export type MessageEvent = z.infer<typeof MessageEventSchema>;
