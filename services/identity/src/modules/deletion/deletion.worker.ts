import { DurableWorker, type Logger } from '@msp/runtime';
import type { DeletionRepository } from './deletion.repository.js';
import type { DeletionService } from './deletion.service.js';

/**
 * The grace worker (`identity-account-deletion`, docs/durable-worker.md): every `pollMs`, and at
 * once after ACC-5, removes the accounts whose grace has passed. Its state is `users.delete_at`
 * alone, so a restart loses nothing: the next run finds what is still due.
 */
export function createDeletionWorker(deletion: DeletionService, repo: DeletionRepository, pollMs: number, logger: Logger): DurableWorker {
  return new DurableWorker({
    name: 'identity-account-deletion',
    logger,
    pollMs,
    batch: () => deletion.removeDue(),
    lag: () => repo.oldestDueAgeSeconds(new Date()),
  });
}
