import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/**
 * Events produced by the messaging service (`messaging.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */

const Id = z.number().int().positive();

/**
 * MSG-4 committed a message. `renderings` holds the Message record (docs/api.md) as each participant
 * sees it (resources the reader may not see are null), keyed by user id: notification sends each
 * participant their own rendering on WS-4 and raises the recipient's DM notification (R15, R16).
 */
export const MessageSent = defineEvent(
  'messaging.message.sent.v1',
  z.object({
    messageId: Id,
    conversationId: Id,
    senderId: Id,
    recipientId: Id,
    /** Message content as stored ("" when only resources were sent). */
    content: z.string(),
    renderings: z.record(z.string(), z.record(z.string(), z.unknown())),
    at: z.string(),
  }),
);

/** MSG-3 marked the partner's messages read (only sent when at least one changed). */
export const ConversationRead = defineEvent(
  'messaging.conversation.read.v1',
  z.object({ conversationId: Id, readerId: Id, partnerId: Id, readAt: z.string() }),
);
