import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferedLog, LOG_FLUSH_INTERVAL_MS } from '../../src/log-destination.js';

const dir = mkdtempSync(path.join(tmpdir(), 'msp-log-'));
const fixture = fileURLToPath(new URL('../fixtures/log-then-exit.ts', import.meta.url));
const opened: number[] = [];
afterEach(() => opened.splice(0).forEach((fd) => closeSync(fd)));

function logFile(name: string) {
  const file = path.join(dir, name);
  const fd = openSync(file, 'w');
  opened.push(fd);
  return { fd, lines: () => readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs the fixture with fd 3 open on a file; the file's lines once the process has ended. */
async function linesAfter(how: 'exit' | 'throw' | 'end', count: number): Promise<string[]> {
  const { fd, lines } = logFile(`${how}.log`);
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { ...process.env, HOW: how, LINES: String(count) },
    stdio: ['ignore', 'ignore', 'ignore', fd],
  });
  await once(child, 'exit');
  return lines();
}

describe('log destination (LOG_BUFFER_BYTES)', () => {
  it('joins lines until the buffer fills, and a quiet process still writes them within the flush interval', async () => {
    const { fd, lines } = logFile('quiet.log');
    const logger = pino({ base: null }, bufferedLog(fd, 4096));
    logger.info('first');
    logger.info('second');
    // Nothing is written per line...
    expect(lines()).toEqual([]);
    // ...and nothing waits for long.
    const started = Date.now();
    await until(() => lines().length === 2, 5 * LOG_FLUSH_INTERVAL_MS);
    expect(Date.now() - started).toBeLessThan(5 * LOG_FLUSH_INTERVAL_MS);
    expect(lines().map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['first', 'second']);
  });

  it('writes a full buffer without waiting for the timer, every line whole and in order', async () => {
    const { fd, lines } = logFile('busy.log');
    const logger = pino({ base: null }, bufferedLog(fd, 1024));
    for (let i = 0; i < 5000; i++) logger.info({ i }, 'busy');
    await until(() => lines().length === 5000, 5000);
    expect(lines().map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it('0 writes each line as it comes', async () => {
    const { fd, lines } = logFile('unbuffered.log');
    const logger = pino({ base: null }, bufferedLog(fd, 0));
    logger.info('alone');
    await until(() => lines().length === 1, LOG_FLUSH_INTERVAL_MS / 2);
  });

  // 250 lines of ~50 bytes stay below the fixture's 16,000-byte buffer: all of them still wait when it ends.
  it.each(['exit', 'throw', 'end'] as const)('what still waits is written when the process ends (%s)', async (how) => {
    const lines = await linesAfter(how, 250);
    expect(lines).toHaveLength(250);
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(Array.from({ length: 250 }, (_, i) => i));
  });
});
