import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger.js';

/**
 * What one batch answers: how many rows it removed (a plain loop ends when a batch removes none),
 * or that with the keyset cursor to go on after (a keyset loop ends when `next` is null; a batch
 * that scanned rows but removed none of them goes on).
 */
export type BatchRemoval<C> = number | { removed: number; next: C | null };

export interface RemoveInBatchesOptions {
  /** What is being removed: the label of the log lines (`social.track_likes`). */
  name: string;
  /**
   * At most this many batches (default 100,000): a step that keeps finding rows it does not
   * remove would otherwise loop for ever. Beyond it the removal throws, so the caller's retry
   * (the event's redelivery) resumes it later and the logs say which step did not converge.
   */
  maxBatches?: number;
  /**
   * Pause between two batches in ms (default 0: only a turn of the event loop). Every batch
   * commits before the pause, so it releases its locks first; a pause only spreads the work.
   */
  pauseMs?: number;
  /** A batch longer than this (ms, default 1,000) is logged as a warning: it held its locks that long. */
  slowBatchMs?: number;
  /** Stops between two batches once aborted (a shutdown): throws the signal's reason. */
  signal?: AbortSignal;
  logger?: Pick<Logger, 'debug' | 'warn'>;
  /** Fields added to every log line (the user id of a deletion). */
  context?: object;
  /** Called after every batch (a metric, a test). */
  onBatch?: (batch: { removed: number; ms: number }) => void;
}

/** What a whole removal did. */
export interface RemovalSummary {
  removed: number;
  batches: number;
  ms: number;
  /** The longest batch (ms): how long one batch held its locks at most. */
  longestBatchMs: number;
}

const DEFAULT_MAX_BATCHES = 100_000;
const DEFAULT_SLOW_BATCH_MS = 1000;

/**
 * Removes rows in small batches until none is left (docs/account-control.md, "Removal"): `step`
 * removes one batch in its own short transaction (the SQL stays in the service's repository) and
 * answers how many rows it removed, or that and the keyset cursor after the rows it looked at;
 * this loop calls it again until it removes nothing (or the cursor ends), with a bound, a pause or
 * yield between batches, cancellation, and the log of the slow batches and of the total. Each
 * batch commits on its own, so another user's write never waits behind more than one batch, and
 * a removal stopped mid-way is finished by calling it again: every step removes what is still
 * there, so it must be idempotent.
 */
export async function removeInBatches<C = never>(
  step: (cursor: C | undefined) => Promise<BatchRemoval<C>>,
  options: RemoveInBatchesOptions,
): Promise<RemovalSummary> {
  const maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
  const slowBatchMs = options.slowBatchMs ?? DEFAULT_SLOW_BATCH_MS;
  const started = performance.now();
  const summary: RemovalSummary = { removed: 0, batches: 0, ms: 0, longestBatchMs: 0 };
  let cursor: C | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const batchStarted = performance.now();
    const result = await step(cursor);
    const ms = performance.now() - batchStarted;
    const removed = typeof result === 'number' ? result : result.removed;
    const done = typeof result === 'number' ? result === 0 : result.next === null;
    summary.removed += removed;
    summary.batches += 1;
    summary.longestBatchMs = Math.max(summary.longestBatchMs, ms);
    options.onBatch?.({ removed, ms });
    if (ms > slowBatchMs) options.logger?.warn({ ...options.context, removal: options.name, removed, ms: Math.round(ms) }, 'slow removal batch');
    if (done) break;
    if (typeof result !== 'number') cursor = result.next ?? undefined;
    if (summary.batches >= maxBatches) {
      throw new Error(`${options.name}: rows still left after ${maxBatches} batches (${summary.removed} removed)`);
    }
    if (options.pauseMs) {
      // An abort rejects the timer with a generic AbortError: the signal's own reason says why.
      await sleep(options.pauseMs, undefined, { signal: options.signal }).catch((err: unknown) => {
        options.signal?.throwIfAborted();
        throw err;
      });
    } else {
      await yieldToEventLoop();
    }
  }
  summary.ms = performance.now() - started;
  if (summary.removed > 0) {
    options.logger?.debug(
      {
        ...options.context,
        removal: options.name,
        removed: summary.removed,
        batches: summary.batches,
        ms: Math.round(summary.ms),
        longestBatchMs: Math.round(summary.longestBatchMs),
      },
      'removed in batches',
    );
  }
  return summary;
}
