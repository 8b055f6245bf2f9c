import type { FastifyBaseLogger } from 'fastify';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { DEDUP_WINDOW_MS } from './notification.creator.js';

/**
 * Dedup keys older than the 24-h window can no longer suppress anything: deleting them keeps the
 * table the size of one day of activity. Safe on every replica at once (a plain DELETE).
 */
export function startDedupSweeper(prisma: PrismaClient, logger: FastifyBaseLogger, everyMs = 60 * 60 * 1000): { stop(): Promise<void> } {
  const sweep = async () => {
    const cutoff = new Date(Date.now() - DEDUP_WINDOW_MS);
    const { count } = await prisma.notificationDedup.deleteMany({ where: { lastAt: { lt: cutoff } } });
    if (count > 0) logger.debug({ count }, 'expired notification dedup keys removed');
  };
  const timer = setInterval(() => sweep().catch((err: unknown) => logger.warn({ err }, 'dedup sweep failed')), everyMs);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
