import type { Message } from '@msp/contracts';
import type { RenderedResources } from '../../clients/catalog.client.js';
import { DELETED_USER_ID } from '../users/unknown-user.js';
import { summaryFor, type UserRows } from '../users/user-rows.js';
import { storedResources, type MessageRow, type StoredResource } from './messages.repository.js';

/** Track and playlist ids a set of messages points at (one catalog call per kind renders them all). */
export function resourceIds(rows: readonly Pick<MessageRow, 'resources'>[]): { trackIds: number[]; playlistIds: number[] } {
  return splitIds(rows.flatMap((row) => storedResources(row)));
}

export function splitIds(all: readonly StoredResource[]): { trackIds: number[]; playlistIds: number[] } {
  return {
    trackIds: all.filter((r) => r.resourceType === 'TRACK').map((r) => r.resourceId),
    playlistIds: all.filter((r) => r.resourceType === 'PLAYLIST').map((r) => r.resourceId),
  };
}

/** The Message record (docs/api.md) for one reader: resources that reader cannot see are null. */
export function toMessage(row: MessageRow, readerId: number, users: UserRows, rendered: RenderedResources): Message {
  const resources = storedResources(row).map((r) => ({
    resourceType: r.resourceType,
    resourceId: r.resourceId,
    track: r.resourceType === 'TRACK' ? (rendered.tracks.get(r.resourceId) ?? null) : null,
    playlist: r.resourceType === 'PLAYLIST' ? (rendered.playlists.get(r.resourceId) ?? null) : null,
  }));
  return {
    id: row.id,
    messageId: row.id,
    conversationId: row.conversationId,
    senderId: row.senderId ?? DELETED_USER_ID,
    sender: summaryFor(users, row.senderId, readerId),
    content: row.content,
    resources,
    resourceType: resources[0]?.resourceType ?? null,
    resourceId: resources[0]?.resourceId ?? null,
    isRead: row.readAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}
