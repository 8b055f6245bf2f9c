import type { TransactionalClient } from '@msp/events';
import { recomputeTrending } from './trending-stats.repository.js';

// The window's rules, for the readers that take them from here.
export { TRENDING_DAYS, TRENDING_WEIGHTS, type StatColumn } from './trending-rules.js';

/** Keeps the window true across midnight: recompute at start, then whenever the UTC day changes. */
export function startTrendingRefresher(db: TransactionalClient, logger: { warn(obj: object, msg: string): void }, everyMs = 60_000): { stop(): Promise<void> } {
  let lastDay = '';
  let running: Promise<void> | null = null;
  const tick = () => {
    const today = new Date().toISOString().slice(0, 10);
    if (today === lastDay || running) return;
    running = recomputeTrending(db)
      .then(() => {
        lastDay = today;
      })
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'trending recompute failed; will retry'))
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
