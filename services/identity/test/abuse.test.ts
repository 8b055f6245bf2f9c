import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@msp/testing';
import { emailKey, hashSecret } from '../src/modules/sessions/secrets.js';
import { PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

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
const queueDrained = () =>
  waitFor(async () => ((await prisma().mailRequest.count()) === 0 ? true : undefined), { timeoutMs: 10_000, message: 'mail requests not handled' });

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

describe('AUTH-7 resend verification email: per-account cap', () => {
  it('sends at most 5 verification mails per account and hour, the registration mail included', async () => {
    await post('/api/auth/register/local', { email: 'unverified@example.com', displayName: 'Unverified', password: PASSWORD, dateOfBirth: '1990-01-01' });
    const answers = [];
    for (let i = 0; i < 8; i += 1) {
      // Past the 60-s cooldown of the address (it is what a patient attacker would wait for).
      await h.app.redis.del(`auth:resend:${emailKey('unverified@example.com')}`);
      answers.push(await post('/api/auth/resend-verification', { email: 'unverified@example.com' }));
    }
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    await queueDrained();
    expect(await prisma().mailOutbox.count({ where: { recipient: 'unverified@example.com' } })).toBe(5);
  });
});

const attempt = (email: string, password: string, ip: string, knownDevice?: string) =>
  h.app.inject({
    method: 'POST',
    url: '/api/auth/login/local',
    headers: { 'x-forwarded-for': ip, ...(knownDevice ? { cookie: `knownDevice=${knownDevice}` } : {}) },
    payload: { email, password },
  });

const deviceCookie = (res: { cookies: Array<{ name: string; value: string }> }) => res.cookies.find((c) => c.name === 'knownDevice')?.value;

/** Logs in once from a fresh client and returns the known-device token it was given. */
async function knownDeviceOf(email: string, password = PASSWORD) {
  const res = await attempt(email, password, '192.0.2.200');
  expect(res.statusCode).toBe(200);
  return deviceCookie(res)!;
}

async function fail20(email: string) {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i += 1) statuses.push((await attempt(email, `wrong guess ${i}`, `203.0.113.${i}`)).statusCode);
  return statuses;
}

describe('AUTH-1 login with email and password: per-account backoff that never locks the owner out', () => {
  it("refuses 20 failures from 20 addresses with 429 from the 6th on; the owner's known device still logs in", async () => {
    await verifiedUser(h, 'target@example.com', 'Target');
    const device = await knownDeviceOf('target@example.com');
    expect(await fail20('target@example.com')).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);

    const stranger = await attempt('target@example.com', PASSWORD, '203.0.113.99');
    expect(stranger.statusCode).toBe(429);
    expect(stranger.json().code).toBe('RATE_LIMITED');
    expect(Number(stranger.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const owner = await attempt('target@example.com', PASSWORD, '203.0.113.99', device);
    expect(owner.statusCode).toBe(200);
    // The device stays known: no new cookie.
    expect(deviceCookie(owner)).toBeUndefined();
  });

  it('counts unknown addresses the same way, so the answers tell nothing about accounts', async () => {
    expect(await fail20('no-such-account@example.com')).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
  });

  it('doubles the backoff with each failure after the limit', async () => {
    await verifiedUser(h, 'backoff@example.com', 'Backoff');
    const device = await knownDeviceOf('backoff@example.com');
    const deviceId = (await prisma().knownDevice.findUniqueOrThrow({ where: { tokenHash: hashSecret(device) } })).id;
    // Failures from the known device are counted against the account too, but not refused.
    const retryAfter: number[] = [];
    for (let i = 0; i < 4; i += 1) expect((await attempt('backoff@example.com', `nope ${i}`, '192.0.2.1', device)).statusCode).toBe(401);
    for (const extra of [0, 1, 2]) {
      // Keeps the device under its own limit of 5, so that it can go on failing.
      await h.app.redis.del(`auth:login-fail:device:${deviceId}`);
      expect((await attempt('backoff@example.com', `nope more ${extra}`, '192.0.2.1', device)).statusCode).toBe(401);
      retryAfter.push(Number((await attempt('backoff@example.com', PASSWORD, '192.0.2.2')).headers['retry-after']));
    }
    expect(retryAfter).toEqual([30, 60, 120]);
  });

  it('stops trusting a known device after 5 failures of its own, and never one of another account', async () => {
    await verifiedUser(h, 'device-a@example.com', 'Device A');
    await verifiedUser(h, 'device-b@example.com', 'Device B');
    const deviceA = await knownDeviceOf('device-a@example.com');
    const deviceB = await knownDeviceOf('device-b@example.com');
    await fail20('device-a@example.com');
    expect((await attempt('device-a@example.com', PASSWORD, '192.0.2.3', deviceB)).statusCode).toBe(429);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await attempt('device-a@example.com', `stolen cookie ${i}`, '192.0.2.3', deviceA)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await attempt('device-a@example.com', PASSWORD, '192.0.2.3', deviceA)).statusCode).toBe(429);
  });

  it('lets the owner back in through AUTH-8/AUTH-9 on a new device: the reset lifts the backoff and makes the client a known device', async () => {
    await verifiedUser(h, 'reset-me@example.com', 'Reset Me');
    await fail20('reset-me@example.com');
    const before = h.mail.mails.length;
    expect((await post('/api/auth/forgot-password', { email: 'reset-me@example.com' })).statusCode).toBe(200);
    const { token } = await h.mail.tokenFor('reset-me@example.com', /reset/i, before);
    const reset = await post('/api/auth/reset-password', { token, newPassword: 'my new long secret' });
    expect(reset.statusCode).toBe(200);
    const device = deviceCookie(reset);
    expect(device).toMatch(/^[\w-]{43}$/);
    // The attacker goes on; the owner's new device is not refused.
    await fail20('reset-me@example.com');
    expect((await attempt('reset-me@example.com', 'my new long secret', '203.0.113.50')).statusCode).toBe(429);
    expect((await attempt('reset-me@example.com', 'my new long secret', '203.0.113.50', device)).statusCode).toBe(200);
  });

  it('exposes the failure rate in /metrics', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toMatch(/identity_login_attempts_total\{outcome="invalid_credentials"\} [1-9]/);
    expect(res.body).toMatch(/identity_login_attempts_total\{outcome="throttled_account"\} [1-9]/);
    expect(res.body).toMatch(/identity_mail_requests_total\{kind="RESET_PASSWORD",outcome="capped"\} [1-9]/);
  });
});
