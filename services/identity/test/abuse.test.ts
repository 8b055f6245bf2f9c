import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@msp/testing';
import { startIdentity, verifiedUser, type Harness } from './helpers.js';

// Per-address limits set high: these tests show the per-account limits, whatever address the
// requests seem to come from.
let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_abuse', {
    FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: '1000',
    LOGIN_FAILURES_PER_ADDRESS: '1000',
    RESET_MAILS_PER_ACCOUNT_PER_HOUR: '3',
  });
});

afterAll(async () => {
  await h?.close();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => h.app.inject({ method: 'POST', url, payload, headers });
const prisma = () => h.app.infra.prisma;
const queueDrained = () => waitFor(async () => ((await prisma().mailRequest.count()) === 0 ? true : undefined), { timeoutMs: 10_000, message: 'mail requests not handled' });

describe('AUTH-8 start password recovery: per-account cap and queued work', () => {
  it('answers 10 requests with rotating addresses alike, and queues at most 3 reset mails for the account', async () => {
    await verifiedUser(h, 'victim@example.com', 'Victim');
    const answers = [];
    for (let i = 0; i < 10; i += 1) {
      answers.push(await post('/api/auth/forgot-password', { email: 'victim@example.com' }, { 'x-forwarded-for': `198.51.100.${i}` }));
    }
    const unknown = await post('/api/auth/forgot-password', { email: 'nobody-at-all@example.com' });
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    for (const a of answers) expect(a.json()).toEqual(unknown.json());
    await queueDrained();
    expect(await prisma().mailOutbox.count({ where: { recipient: 'victim@example.com', subject: { contains: 'eset' } } })).toBe(3);
    expect(await prisma().mailOutbox.count({ where: { recipient: 'nobody-at-all@example.com' } })).toBe(0);
  });

  it('answers without waiting for the token and mail writes, which happen after the answer', async () => {
    await verifiedUser(h, 'quiet@example.com', 'Quiet');
    await queueDrained();
    const tokensBefore = await prisma().oneTimeToken.count();
    // Block every write to one_time_tokens: a request that issued its token inline would hang.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = prisma().$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE one_time_tokens IN EXCLUSIVE MODE');
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 30_000 },
    );
    await isLocked;
    try {
      const started = performance.now();
      const known = await post('/api/auth/forgot-password', { email: 'quiet@example.com' });
      const unknown = await post('/api/auth/forgot-password', { email: 'quiet-nobody@example.com' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(known.statusCode).toBe(200);
      expect(known.json()).toEqual(unknown.json());
      expect(await prisma().oneTimeToken.count()).toBe(tokensBefore);
    } finally {
      release();
      await holder;
    }
    await queueDrained();
    expect(await prisma().oneTimeToken.count()).toBe(tokensBefore + 1);
    await h.mail.tokenFor('quiet@example.com', /reset/i);
  });
});
