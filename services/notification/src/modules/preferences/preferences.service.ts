import type { NotificationPreferences } from '@msp/contracts';
import { toPreferences } from './preferences.mapper.js';
import type { PreferencesStore } from './preferences.repository.js';

export class PreferencesService {
  constructor(private readonly repo: PreferencesStore) {}

  /** NOT-5. */
  async get(userId: number): Promise<NotificationPreferences> {
    return toPreferences(await this.repo.find(userId));
  }

  /** NOT-6: any subset of the five booleans; an empty change just answers the current values. */
  async update(userId: number, changes: Partial<NotificationPreferences>): Promise<NotificationPreferences> {
    if (Object.keys(changes).length === 0) return this.get(userId);
    return toPreferences(await this.repo.upsert(userId, changes));
  }
}
