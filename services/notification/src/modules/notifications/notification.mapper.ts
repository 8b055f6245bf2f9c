import type { Notification, NotificationType, ResourceType, UserSummary } from '@msp/contracts';
import type { NotificationViewRow } from './notifications.repository.js';

/** R1 web-app link forms. */
export const webPaths = {
  profile: (username: string) => `/${username}`,
  track: (username: string, trackSlug: string) => `/${username}/${trackSlug}`,
  playlist: (username: string, playlistSlug: string) => `/${username}/sets/${playlistSlug}`,
  conversation: (conversationId: number) => `/messages/${conversationId}`,
};

function actorSummary(row: NotificationViewRow): UserSummary {
  // The projection may not hold the actor yet (an identity event still in flight): a stand-in.
  const username = row.actorUsername ?? `user-${row.actorId}`;
  return {
    id: row.actorId,
    username,
    displayName: row.actorDisplayName || username,
    avatarUrl: row.actorAvatarUrl,
    tier: row.actorTier === 'PRO' ? 'PRO' : 'FREE',
    isFollowing: row.actorFollowed,
    followerCount: row.actorFollowerCount ?? 0,
    trackCount: row.actorTrackCount ?? 0,
  };
}

/**
 * targetTitle and targetUrl from the current copies (a renamed user or track links correctly),
 * else what was stored when the notification was created.
 */
function target(row: NotificationViewRow, actor: UserSummary): { title: string | null; url: string | null } {
  switch (row.resourceType) {
    case 'TRACK':
      return {
        title: row.trackTitle ?? row.storedTitle,
        url: row.trackSlug && row.trackOwner ? webPaths.track(row.trackOwner, row.trackSlug) : row.storedUrl,
      };
    case 'PLAYLIST':
      return {
        title: row.playlistTitle ?? row.storedTitle,
        url: row.playlistSlug && row.playlistOwner ? webPaths.playlist(row.playlistOwner, row.playlistSlug) : row.storedUrl,
      };
    default:
      if (row.type === 'WEBHOOK_DISABLED') return { title: row.storedTitle, url: row.storedUrl };
      if (row.type === 'DM' && row.conversationId !== null) return { title: null, url: webPaths.conversation(row.conversationId) };
      return { title: null, url: row.actorUsername ? webPaths.profile(actor.username) : row.storedUrl };
  }
}

/** The Notification record (docs/api.md). */
export function toNotification(row: NotificationViewRow): Notification {
  const user = actorSummary(row);
  const { title, url } = target(row, user);
  return {
    id: row.id,
    type: row.type as NotificationType,
    user,
    resource: { resourceType: row.resourceType as ResourceType, resourceId: row.resourceId },
    targetTitle: title,
    targetUrl: url,
    conversationId: row.conversationId,
    isRead: row.isRead,
    createdAt: row.createdAt.toISOString(),
  };
}
