import { describe, expect, it } from 'vitest';
import type { AnalyticsStore, CounterSums } from './analytics.repository.js';
import { AnalyticsService } from './analytics.service.js';

const sums = (overrides: Partial<CounterSums> = {}): CounterSums => ({
  users: 10n,
  artists: 3n,
  listeners: 7n,
  tracks: 20n,
  plays: 100n,
  completedPlays: 40n,
  storageBytes: 5000n,
  banned: 2n,
  ...overrides,
});

const service = (row: CounterSums | undefined) => new AnalyticsService({ sums: async () => row } satisfies AnalyticsStore, 1_000_000);

describe('MOD-12 platform metrics', () => {
  it('renders the counter sums as numbers with the configured capacity', async () => {
    await expect(service(sums()).metrics()).resolves.toEqual({
      totalUsers: 10,
      totalTracks: 20,
      totalPlays: 100,
      playThroughRate: 0.4,
      totalStorageUsedBytes: 5000,
      totalStorageCapacityBytes: 1_000_000,
      bannedUserCount: 2,
      totalBannedUsers: 2,
      artistToListenerRatio: '3:7',
    });
  });

  it('caps the play-through rate at 1 and answers 0 without plays', async () => {
    await expect(service(sums({ completedPlays: 150n })).metrics()).resolves.toMatchObject({ playThroughRate: 1 });
    await expect(service(sums({ plays: 0n, completedPlays: 0n })).metrics()).resolves.toMatchObject({ playThroughRate: 0 });
  });

  it('answers zeros on an empty platform and never a negative figure', async () => {
    const empty = await service(undefined).metrics();
    expect(empty).toMatchObject({ totalUsers: 0, totalTracks: 0, totalPlays: 0, artistToListenerRatio: '0:0' });
    await expect(service(sums({ storageBytes: -5n })).metrics()).resolves.toMatchObject({ totalStorageUsedBytes: 0 });
  });
});
