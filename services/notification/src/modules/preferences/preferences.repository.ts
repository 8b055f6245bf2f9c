import type { NotificationPreferences } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { preferencesSelect } from './preferences.mapper.js';

/** What PreferencesService needs of this repository (unit tests give fakes). */
export type PreferencesStore = Pick<PreferencesRepository, 'find' | 'upsert'>;

export class PreferencesRepository {
  constructor(private readonly prisma: PrismaClient) {}

  find(userId: number): Promise<NotificationPreferences | null> {
    return this.prisma.notificationPreference.findUnique({ where: { userId }, select: preferencesSelect });
  }

  /** Creates the row (unset fields default to true) or changes only the given fields. */
  upsert(userId: number, changes: Partial<NotificationPreferences>): Promise<NotificationPreferences> {
    return this.prisma.notificationPreference.upsert({
      where: { userId },
      create: { userId, ...changes },
      update: changes,
      select: preferencesSelect,
    });
  }
}
