import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@msp/runtime';
import { startDedupSweeper } from './dedup.sweeper.js';
import { DEDUP_WINDOW_MS } from '../activity/activity.consumers.js';

describe('R15 dedup key sweeper (unit, fake store)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps keys older than the window every period, the first one a period after the start, and not after stop()', async () => {
    const cutoffs: number[] = [];
    const store = {
      deleteDedupKeysBefore: async (cutoff: Date) => {
        cutoffs.push(cutoff.getTime());
        if (cutoffs.length === 2) throw new Error('database down');
        return 3;
      },
    };
    const t0 = Date.now();
    const sweeper = startDedupSweeper(store, silentLogger, 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(cutoffs).toEqual([]);
    await vi.advanceTimersByTimeAsync(2001);
    // A failed sweep is retried at the next period.
    expect(cutoffs).toEqual([t0 + 1000 - DEDUP_WINDOW_MS, t0 + 2000 - DEDUP_WINDOW_MS, t0 + 3000 - DEDUP_WINDOW_MS]);
    await sweeper.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(cutoffs).toHaveLength(3);
  });
});
