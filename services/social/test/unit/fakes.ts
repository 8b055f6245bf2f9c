import type { Caller } from '@msp/http';
import { outboxRecorder, type RecordedEvent } from '@msp/testing/fakes';
import type { UnitOfWork } from '@msp/db';

/** Callers of the unit tests: a listener, an artist and an admin. */
export const ann: Caller = { userId: 1, role: 'LISTENER', tier: 'FREE', sessionId: 's1', username: 'ann' };
export const bob: Caller = { userId: 2, role: 'ARTIST', tier: 'PRO', sessionId: 's2', username: 'bob' };
export const admin: Caller = { userId: 9, role: 'ADMIN', tier: 'FREE', sessionId: 's9', username: 'root' };

/**
 * A unit of work without a database: `run` hands the work the shared outbox recorder
 * (`@msp/testing/fakes`), which records the events a service emits through `writeOutbox`, with
 * their correlation ids, and refuses any other SQL, since the repositories it is handed are fakes.
 */
export function recordingTransactions(): { transactions: UnitOfWork; events: RecordedEvent[]; runs: () => number } {
  const { tx, events } = outboxRecorder({ correlationIds: true });
  let runs = 0;
  return {
    transactions: {
      run: (work) => {
        runs += 1;
        return work(tx);
      },
    },
    events,
    runs: () => runs,
  };
}

/** Transactions for a test that expects no write at all. */
export const noTransactions: UnitOfWork = {
  run: () => {
    throw new Error('no write expected');
  },
};

/** A user summary source row as the repositories return it. */
export function summaryRow(userId: number, isFollowing = false) {
  return {
    userId,
    username: `u${userId}`,
    displayName: `U${userId}`,
    avatarUrl: null,
    tier: 'FREE',
    followerCount: 0,
    trackCount: 0,
    isFollowing,
  };
}
