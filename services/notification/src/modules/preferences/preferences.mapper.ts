import type { NotificationPreferences } from '@msp/contracts';

/** R15: every preference is on until the user turns it off. */
export const DEFAULT_PREFERENCES: NotificationPreferences = {
  notifyOnFollow: true,
  notifyOnLike: true,
  notifyOnRepost: true,
  notifyOnComment: true,
  notifyOnDM: true,
};

export const preferencesSelect = {
  notifyOnFollow: true,
  notifyOnLike: true,
  notifyOnRepost: true,
  notifyOnComment: true,
  notifyOnDM: true,
} as const;

export function toPreferences(row: NotificationPreferences | null): NotificationPreferences {
  if (!row) return { ...DEFAULT_PREFERENCES };
  return {
    notifyOnFollow: row.notifyOnFollow,
    notifyOnLike: row.notifyOnLike,
    notifyOnRepost: row.notifyOnRepost,
    notifyOnComment: row.notifyOnComment,
    notifyOnDM: row.notifyOnDM,
  };
}
