import { z } from 'zod';

import { NotificationTypeSchema, ResourceTypeSchema } from '../enums.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';
import { UserSummarySchema } from './users.js';

export const NotificationResourceSchema = z.object({
  resourceType: ResourceTypeSchema,
  /** The track/playlist concerned; the actor for FOLLOW; the conversation partner for DM. */
  resourceId: IdSchema,
});
export type NotificationResource = z.infer<typeof NotificationResourceSchema>;

export const NotificationSchema = z.object({
  id: IdSchema,
  type: NotificationTypeSchema,
  /** The actor. */
  user: UserSummarySchema,
  resource: NotificationResourceSchema,
  targetTitle: z.string().nullable(),
  /** Web-app path (`/alice/my-song`, `/alice/sets/mix`, `/bob`, `/messages/12`). */
  targetUrl: z.string().nullable(),
  /** DM only. */
  conversationId: IdSchema.nullable(),
  isRead: z.boolean(),
  createdAt: DateTimeSchema,
});
export type Notification = z.infer<typeof NotificationSchema>;

export const UnreadCountSchema = z.object({
  unreadCount: CountSchema,
});
export type UnreadCount = z.infer<typeof UnreadCountSchema>;

/** All true by default; NOT-6 accepts any subset (`.partial()`). */
export const NotificationPreferencesSchema = z.object({
  notifyOnFollow: z.boolean(),
  notifyOnLike: z.boolean(),
  notifyOnRepost: z.boolean(),
  /** Covers COMMENT and REPLY. */
  notifyOnComment: z.boolean(),
  notifyOnDM: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>;

/** WS-3 payload. */
export const NotificationEventSchema = z.object({
  event: z.enum(['NOTIFICATION_CREATED', 'NOTIFICATIONS_READ']),
  notification: NotificationSchema.nullable(),
  unreadCount: CountSchema,
});
export type NotificationEvent = z.infer<typeof NotificationEventSchema>;
