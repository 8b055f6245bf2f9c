import { describe, expect, it } from 'vitest';
import { removeInBatches } from '../../src/batched-removal.js';

/** A fake table of `n` rows of which a batch removes at most `size`. */
function table(n: number, size: number) {
  let left = n;
  return {
    get left() {
      return left;
    },
    removeBatch: async () => {
      const removed = Math.min(size, left);
      left -= removed;
      return removed;
    },
  };
}

const recorder = () => {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg?: string }> = [];
  return {
    lines,
    logger: {
      debug: (obj: object, msg?: string) => lines.push({ level: 'debug', obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    },
  };
};

describe('ACC-5 removeInBatches: the batched removal of the deletion modules', () => {
  it('calls the step until a batch removes nothing, and sums what it removed', async () => {
    const t = table(1234, 500);
    const sizes: number[] = [];
    const summary = await removeInBatches(t.removeBatch, { name: 'test.rows', onBatch: (b) => sizes.push(b.removed) });
    expect(t.left).toBe(0);
    expect(sizes).toEqual([500, 500, 234, 0]);
    expect(summary).toMatchObject({ removed: 1234, batches: 4 });
    expect(summary.longestBatchMs).toBeGreaterThanOrEqual(0);
  });

  it('with nothing to remove: one batch, nothing logged', async () => {
    const { lines, logger } = recorder();
    const summary = await removeInBatches(table(0, 10).removeBatch, { name: 'test.none', logger });
    expect(summary).toMatchObject({ removed: 0, batches: 1 });
    expect(lines).toEqual([]);
  });

  it('walks a keyset: hands each batch the cursor of the previous one, goes on through batches that removed nothing, ends on a null cursor', async () => {
    // Rows 1…10; only the even ones are "the user's"; a batch scans 3 ids after the cursor.
    const rows = new Set(Array.from({ length: 10 }, (_, i) => i + 1));
    const cursors: Array<number | undefined> = [];
    const summary = await removeInBatches<number>(
      async (after) => {
        cursors.push(after);
        const scanned = [...rows].filter((id) => id > (after ?? 0)).slice(0, 3);
        const doomed = scanned.filter((id) => id % 2 === 0);
        for (const id of doomed) rows.delete(id);
        return { removed: doomed.length, next: scanned.length < 3 ? null : scanned.at(-1)! };
      },
      { name: 'test.keyset' },
    );
    expect([...rows]).toEqual([1, 3, 5, 7, 9]);
    expect(summary.removed).toBe(5);
    expect(cursors).toEqual([undefined, 3, 6, 9]);
  });

  it('throws past maxBatches (a step that never converges), after removing what it could', async () => {
    let calls = 0;
    await expect(
      removeInBatches(
        async () => {
          calls += 1;
          return 1;
        },
        { name: 'test.endless', maxBatches: 5 },
      ),
    ).rejects.toThrow(/test\.endless: rows still left after 5 batches \(5 removed\)/);
    expect(calls).toBe(5);
  });

  it('stops between batches once its signal is aborted, and waits pauseMs between batches', async () => {
    const controller = new AbortController();
    const t = table(100, 10);
    const at: number[] = [];
    const removal = removeInBatches(
      async () => {
        at.push(performance.now());
        if (at.length === 3) controller.abort(new Error('shutting down'));
        return t.removeBatch();
      },
      { name: 'test.abort', pauseMs: 20, signal: controller.signal },
    );
    await expect(removal).rejects.toThrow('shutting down');
    expect(at).toHaveLength(3);
    expect(t.left).toBe(70);
    // Timers may fire a little early; never much.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(15);
  });

  it('logs a slow batch as a warning and the total at debug, with the context fields', async () => {
    const { lines, logger } = recorder();
    let calls = 0;
    await removeInBatches(
      async () => {
        calls += 1;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 30));
        return calls <= 2 ? 7 : 0;
      },
      { name: 'test.slow', slowBatchMs: 20, logger, context: { userId: 42 } },
    );
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      { level: 'warn', obj: expect.objectContaining({ userId: 42, removal: 'test.slow', removed: 7 }), msg: 'slow removal batch' },
    ]);
    expect(lines.at(-1)).toEqual({
      level: 'debug',
      obj: expect.objectContaining({ userId: 42, removal: 'test.slow', removed: 14, batches: 3 }),
      msg: 'removed in batches',
    });
  });

  it('propagates a failing batch: what earlier batches removed stays removed, a second call finishes', async () => {
    const t = table(30, 10);
    let fail = true;
    const step = async () => {
      if (t.left === 10 && fail) {
        fail = false;
        throw new Error('connection lost');
      }
      return t.removeBatch();
    };
    await expect(removeInBatches(step, { name: 'test.resume' })).rejects.toThrow('connection lost');
    expect(t.left).toBe(10);
    expect((await removeInBatches(step, { name: 'test.resume' })).removed).toBe(10);
    expect(t.left).toBe(0);
  });
});
