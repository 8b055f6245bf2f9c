import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResourceTypeSchema } from '../../enums.js';
import { IdSchema } from '../../records/primitives.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';
import { pageSchema } from '../../records/page.js';
import { ConversationSchema, MessageSchema } from '../../records/messaging.js';

const ResourceInputSchema = z.object({ resourceType: MessageResourceTypeSchema, resourceId: IdSchema });

/**
 * MSG-4 body. Lengths and the "body or resources" rule are checked by the service after trimming
 * (R16); the array limit is also the service's, since the single resourceType/resourceId pair
 * joins the list. A hard cap keeps absurd arrays from being parsed at all.
 */
const SendBodySchema = z.object({
  body: z.string().max(100_000).optional(),
  content: z.string().max(100_000).optional(),
  resources: z.array(ResourceInputSchema).max(5).optional(),
  resourceType: MessageResourceTypeSchema.optional(),
  resourceId: IdSchema.optional(),
});

const conversationParams = IdParamSchema('conversationId');

/** The operations of messaging's conversations module (services/messaging/src/modules/conversations): contract row, input and output. */
export const MESSAGING_CONVERSATIONS = {
  'MSG-1': {
    method: 'GET',
    path: '/conversations',
    auth: 'bearer',
    owner: 'messaging',
    bodyKind: 'none',
    summary: 'List direct-message threads',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'messages',

    querystring: PageQuerySchema,
    response: { 200: pageSchema(ConversationSchema) },
  },
  'MSG-2': {
    method: 'POST',
    path: '/conversations/{userId}/start',
    auth: 'bearer',
    owner: 'messaging',
    bodyKind: 'json',
    summary: 'Start a thread',
    errors: ['VALIDATION_FAILED', 'SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'USER_BLOCKED', 'USER_NOT_FOUND'],
    scope: 'messages',

    params: IdParamSchema('userId'),
    response: { 200: ConversationSchema, 201: ConversationSchema },
  },
  'MSG-3': {
    method: 'GET',
    path: '/conversations/{conversationId}/messages',
    auth: 'bearer',
    owner: 'messaging',
    bodyKind: 'none',
    summary: 'Messages within a thread',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'CONVERSATION_NOT_FOUND'],
    scope: 'messages',

    params: conversationParams,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(MessageSchema) },
  },
  'MSG-4': {
    method: 'POST',
    path: '/conversations/{conversationId}/messages',
    auth: 'bearer',
    owner: 'messaging',
    bodyKind: 'json',
    summary: 'Send a message',
    errors: [
      'VALIDATION_FAILED',
      'MALFORMED_REQUEST',
      'UNAUTHORIZED',
      'USER_BLOCKED',
      'USER_NOT_FOUND',
      'CONVERSATION_NOT_FOUND',
      'TRACK_NOT_FOUND',
      'PLAYLIST_NOT_FOUND',
    ],
    scope: 'messages',

    params: conversationParams,
    body: SendBodySchema,
    response: { 201: MessageSchema },
  },
} satisfies Operations;
