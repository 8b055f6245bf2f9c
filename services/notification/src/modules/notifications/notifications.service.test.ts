import { describe, expect, it } from 'vitest';
import type { NotificationsStore, NotificationViewRow } from './notifications.repository.js';
import { NotificationsService } from './notifications.service.js';

const row = (id: number, isRead: boolean): NotificationViewRow => ({
  id,
  type: 'LIKE',
  resourceType: 'TRACK',
  resourceId: 7,
  conversationId: null,
  isRead,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  actorId: 3,
  storedTitle: 'Old title',
  storedUrl: '/carol/old',
  actorUsername: 'carol',
  actorDisplayName: null,
  actorAvatarUrl: null,
  actorTier: 'PRO',
  actorFollowerCount: 4,
  actorTrackCount: 2,
  actorFollowed: true,
  trackTitle: 'New title',
  trackSlug: 'new-title',
  trackOwner: 'dave',
  playlistTitle: null,
  playlistSlug: null,
  playlistOwner: null,
});

/** A user's notifications in memory; a badge cache as a Map. */
function setup(rows: NotificationViewRow[], cached: Record<number, number> = {}) {
  const calls = { page: 0, countUnread: 0 };
  const store: NotificationsStore = {
    page: (_userId, unreadOnly, page, size) => {
      calls.page += 1;
      const matching = rows.filter((r) => !unreadOnly || !r.isRead);
      return Promise.resolve({ rows: matching.slice(page * size, (page + 1) * size), total: matching.length });
    },
    countUnread: () => {
      calls.countUnread += 1;
      return Promise.resolve(rows.filter((r) => !r.isRead).length);
    },
    markAllReadAndAnnounce: () => {
      rows.forEach((r) => (r.isRead = true));
      return Promise.resolve(0);
    },
  };
  const badge = new Map<number, number>(Object.entries(cached).map(([k, v]) => [Number(k), v]));
  const counter = {
    get: (userId: number) => Promise.resolve(badge.get(userId) ?? null),
    set: (userId: number, value: number) => {
      badge.set(userId, value);
      return Promise.resolve();
    },
  };
  return { service: new NotificationsService(store, counter), badge, calls };
}

describe('NOT-1 list notifications', () => {
  it('pages the rows, unread only on request, with the current title and link of the target and actor', async () => {
    const { service, calls } = setup([row(3, false), row(2, true), row(1, false)]);
    const all = await service.list(1, false, 0, 2);
    expect(all).toMatchObject({ totalElements: 3, totalPages: 2, isLast: false });
    expect(all.content[0]).toMatchObject({ id: 3, targetTitle: 'New title', targetUrl: '/dave/new-title', isRead: false });
    expect(all.content[0]?.user).toMatchObject({ id: 3, username: 'carol', displayName: 'carol', tier: 'PRO', isFollowing: true });
    const unread = await service.list(1, true, 0, 20);
    expect(unread.content.map((n) => n.id)).toEqual([3, 1]);
    expect(calls.page).toBe(2);
  });
});

describe('NOT-2 unread count', () => {
  it('counts straight from the store, ignoring the badge cache', async () => {
    const { service } = setup([row(1, false), row(2, false)], { 1: 9 });
    await expect(service.unreadCount(1)).resolves.toEqual({ unreadCount: 2 });
  });
});

describe('NOT-3 badge count', () => {
  it('answers the cached counter without a count, and recomputes and caches on a miss', async () => {
    const hit = setup([row(1, false)], { 1: 5 });
    await expect(hit.service.badgeCount(1)).resolves.toEqual({ unreadCount: 5 });
    expect(hit.calls.countUnread).toBe(0);

    const miss = setup([row(1, false), row(2, false)]);
    await expect(miss.service.badgeCount(1)).resolves.toEqual({ unreadCount: 2 });
    expect(miss.badge.get(1)).toBe(2);
  });
});

describe('NOT-4 mark all read', () => {
  it('marks everything read and resets the badge to what is left', async () => {
    const { service, badge } = setup([row(1, false), row(2, false)], { 1: 2 });
    await expect(service.markAllRead(1)).resolves.toEqual({ message: 'All notifications are marked as read.' });
    expect(badge.get(1)).toBe(0);
    await expect(service.unreadCount(1)).resolves.toEqual({ unreadCount: 0 });
  });
});
