import { describe, expect, it } from 'vitest';
import type { NotificationPreferences } from '@msp/contracts';
import { DEFAULT_PREFERENCES } from './preferences.mapper.js';
import type { PreferencesStore } from './preferences.repository.js';
import { PreferencesService } from './preferences.service.js';

/** One user's stored preferences row (none until the first change), and how many writes happened. */
function fakeStore(initial: NotificationPreferences | null = null) {
  let row = initial;
  const writes: Array<Partial<NotificationPreferences>> = [];
  const store: PreferencesStore = {
    find: () => Promise.resolve(row),
    upsert: (_userId, changes) => {
      writes.push(changes);
      row = { ...(row ?? DEFAULT_PREFERENCES), ...changes };
      return Promise.resolve(row);
    },
  };
  return { store, writes };
}

describe('NOT-5 read notification preferences (R15)', () => {
  it('answers every preference on for a user who never changed one', async () => {
    await expect(new PreferencesService(fakeStore().store).get(1)).resolves.toEqual({
      notifyOnFollow: true,
      notifyOnLike: true,
      notifyOnRepost: true,
      notifyOnComment: true,
      notifyOnDM: true,
    });
  });
});

describe('NOT-6 change notification preferences (R15)', () => {
  it('changes only the given preferences and keeps the others', async () => {
    const { store, writes } = fakeStore();
    const service = new PreferencesService(store);
    await expect(service.update(1, { notifyOnLike: false })).resolves.toEqual({ ...DEFAULT_PREFERENCES, notifyOnLike: false });
    await expect(service.update(1, { notifyOnDM: false })).resolves.toEqual({ ...DEFAULT_PREFERENCES, notifyOnLike: false, notifyOnDM: false });
    expect(writes).toEqual([{ notifyOnLike: false }, { notifyOnDM: false }]);
  });

  it('answers the current values without writing for an empty change', async () => {
    const { store, writes } = fakeStore({ ...DEFAULT_PREFERENCES, notifyOnFollow: false });
    await expect(new PreferencesService(store).update(1, {})).resolves.toEqual({ ...DEFAULT_PREFERENCES, notifyOnFollow: false });
    expect(writes).toEqual([]);
  });
});
