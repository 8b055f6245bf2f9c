import { DurableWorker, type Logger } from '@msp/runtime';
import { DEDUP_WINDOW_MS } from '../activity/activity.consumers.js';
import type { NotificationsRepository } from './notifications.repository.js';

/**
 * Dedup keys older than the 24-h window can no longer suppress anything: deleting them keeps the
 * table the size of one day of activity. Safe on every replica at once (a plain DELETE). The first
 * sweep comes `everyMs` after the start, then `everyMs` after the previous one.
 */
export function startDedupSweeper(
  notifications: Pick<NotificationsRepository, 'deleteDedupKeysBefore'>,
  logger: Logger,
  everyMs = 60 * 60 * 1000,
): { stop(): Promise<void> } {
  const worker = new DurableWorker({
    name: 'notification-dedup-sweeper',
    logger,
    pollMs: everyMs,
    firstRunMs: everyMs,
    batch: async () => {
      const count = await notifications.deleteDedupKeysBefore(new Date(Date.now() - DEDUP_WINDOW_MS));
      if (count > 0) logger.debug({ count }, 'expired notification dedup keys removed');
      return { done: count };
    },
  });
  // Without `notify` start() resolves at once and never rejects.
  void worker.start();
  return worker;
}
