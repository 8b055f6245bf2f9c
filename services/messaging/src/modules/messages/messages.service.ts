import { AppError } from '@msp/errors';
import { toPage, type Message, type MessageResourceType, type Page } from '@msp/contracts';
import { ConversationRead, MessageSent, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import { CatalogUnavailableError, whenCatalogUnavailable, type CatalogClient } from '@msp/runtime';
import { emptyResources, renderResources } from '../../clients/catalog.client.js';
import type { ConversationRef, ConversationsStore } from '../conversations/conversations.repository.js';
import { resourceIds, splitIds, toMessage } from './message.mapper.js';
import type { MessagesStore, StoredResource } from './messages.repository.js';

/** R16 limits. */
export const MAX_BODY_CHARS = 2000;
export const MAX_RESOURCES = 5;

export interface SendInput {
  body?: string;
  content?: string;
  resources?: Array<{ resourceType: MessageResourceType; resourceId: number }>;
  resourceType?: MessageResourceType;
  resourceId?: number;
}

const partnerOf = (conversation: ConversationRef, userId: number) => (conversation.userLowId === userId ? conversation.userHighId : conversation.userLowId);

/** The body and resources of MSG-4 after R16's rules (400 VALIDATION_FAILED otherwise). */
export function normaliseSendInput(input: SendInput): { content: string; resources: StoredResource[] } {
  const content = (input.body ?? input.content ?? '').trim();
  if (content.length > MAX_BODY_CHARS) {
    throw AppError.validation([{ field: input.body !== undefined ? 'body' : 'content', message: `At most ${MAX_BODY_CHARS} characters.` }]);
  }
  if ((input.resourceType === undefined) !== (input.resourceId === undefined)) {
    throw AppError.validation([
      { field: input.resourceType === undefined ? 'resourceType' : 'resourceId', message: 'resourceType and resourceId go together.' },
    ]);
  }
  const resources: StoredResource[] = [...(input.resources ?? [])];
  if (input.resourceType !== undefined && input.resourceId !== undefined) {
    const single = { resourceType: input.resourceType, resourceId: input.resourceId };
    if (!resources.some((r) => r.resourceType === single.resourceType && r.resourceId === single.resourceId)) resources.unshift(single);
  }
  if (resources.length > MAX_RESOURCES) throw AppError.validation([{ field: 'resources', message: `At most ${MAX_RESOURCES} resources.` }]);
  if (content === '' && resources.length === 0) {
    throw AppError.validation([{ field: 'body', message: 'A message needs a non-blank body or at least one resource.' }]);
  }
  return { content, resources };
}

/** MSG-3 and MSG-4. Collaborators are given (app.ts wires them), so a test can pass fakes. */
export class MessagesService {
  constructor(
    private readonly repo: MessagesStore,
    private readonly conversations: ConversationsStore,
    private readonly catalog: Pick<CatalogClient, 'tracks' | 'playlists'>,
  ) {}

  /** 404 CONVERSATION_NOT_FOUND unless the caller takes part (R16) and the partner is not banned (R14). */
  private async conversationOf(callerId: number, conversationId: number): Promise<ConversationRef> {
    const conversation = await this.conversations.refFor(callerId, conversationId);
    if (!conversation) throw new AppError('CONVERSATION_NOT_FOUND');
    return conversation;
  }

  /**
   * MSG-3: a page of messages, newest first, rendered for the caller; first marks the partner's
   * messages read and, when any changed, tells both participants on WS-4 (event in the same
   * transaction). Cost: constant queries and at most one catalog call per resource kind.
   */
  async list(caller: Caller, conversationId: number, page: number, size: number): Promise<Page<Message>> {
    const conversation = await this.conversationOf(caller.userId, conversationId);
    const partnerId = partnerOf(conversation, caller.userId);
    const readAt = new Date();
    await this.repo.transaction(async (tx) => {
      const changed = await this.repo.markRead(tx, conversationId, caller.userId, readAt);
      // A partner who deleted their account (null, ACC-5) has no one to tell.
      if (changed > 0 && partnerId !== null) {
        await writeOutbox(tx, ConversationRead, { conversationId, readerId: caller.userId, partnerId, readAt: readAt.toISOString() });
      }
    });
    const { rows, total } = await this.repo.page(conversationId, page, size);
    const ids = resourceIds(rows);
    const [users, rendered] = await Promise.all([
      this.conversations.users([conversation.userLowId, conversation.userHighId], [caller.userId]),
      whenCatalogUnavailable(renderResources(this.catalog, caller, ids.trackIds, ids.playlistIds), emptyResources()),
    ]);
    return toPage(
      rows.map((row) => toMessage(row, caller.userId, users, rendered)),
      total,
      page,
      size,
    );
  }

  /**
   * MSG-4 (R16, R7): body and resources checked, the conversation the caller's, no block either
   * way (403 USER_BLOCKED to both), every resource visible to the sender (404 otherwise; catalog
   * down → 503, never an unchecked share). The message and its event, carrying each
   * participant's own rendering for WS-4, commit together.
   */
  async send(caller: Caller, conversationId: number, input: SendInput): Promise<Message> {
    const { content, resources } = normaliseSendInput(input);
    const conversation = await this.conversationOf(caller.userId, conversationId);
    const recipientId = partnerOf(conversation, caller.userId);
    // ACC-5: the partner deleted their account; the conversation stays readable, not writable.
    if (recipientId === null) throw new AppError('USER_NOT_FOUND', 'This user deleted their account.');
    const blocks = await this.conversations.blocksBetween(caller.userId, recipientId);
    if (blocks.aBlockedB || blocks.bBlockedA) throw new AppError('USER_BLOCKED', 'A block separates you from this user.');

    const ids = splitIds(resources);
    const forSender = await renderResources(this.catalog, caller, ids.trackIds, ids.playlistIds).catch((err: unknown) => {
      if (err instanceof CatalogUnavailableError) throw new AppError('SERVICE_UNAVAILABLE', 'Shared items cannot be checked right now.');
      throw err;
    });
    const missingTrack = ids.trackIds.find((id) => !forSender.tracks.has(id));
    if (missingTrack !== undefined) throw new AppError('TRACK_NOT_FOUND', `Track ${missingTrack} not found.`);
    const missingPlaylist = ids.playlistIds.find((id) => !forSender.playlists.has(id));
    if (missingPlaylist !== undefined) throw new AppError('PLAYLIST_NOT_FOUND', `Playlist ${missingPlaylist} not found.`);
    const forRecipient = await whenCatalogUnavailable(renderResources(this.catalog, { userId: recipientId }, ids.trackIds, ids.playlistIds), emptyResources());

    const users = await this.conversations.users([caller.userId, recipientId], [caller.userId, recipientId]);
    return this.repo.transaction(async (tx) => {
      const row = await this.repo.insert(tx, { conversationId, senderId: caller.userId, content, resources });
      const mine = toMessage(row, caller.userId, users, forSender);
      const theirs = toMessage(row, recipientId, users, forRecipient);
      await writeOutbox(tx, MessageSent, {
        messageId: row.id,
        conversationId,
        senderId: caller.userId,
        recipientId,
        content,
        renderings: { [String(caller.userId)]: mine, [String(recipientId)]: theirs },
        at: row.createdAt.toISOString(),
      });
      return mine;
    });
  }
}
