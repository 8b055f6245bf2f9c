import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { AccountsStore, TokenUser } from './accounts.repository.js';
import type { AccountRegisterBody } from '@msp/contracts';
import { AccountsService, RESEND_COOLDOWN_SECONDS } from './accounts.service.js';

const config = {
  WEB_BASE_URL: 'https://web.test',
  S3_ENDPOINT: 'https://s3.test',
  S3_BUCKET: 'media',
  CAPTCHA_ENABLED: true,
  CAPTCHA_BYPASS_TOKEN: 'human',
  VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR: 3,
} as IdentityConfig;

/** Taken addresses and usernames; Redis keys with TTLs; no transaction may run (the rules refuse first). */
function setup(opts: { emails?: string[]; usernames?: string[]; account?: { user: Partial<TokenUser>; addressVerified: boolean } } = {}) {
  const keys = new Map<string, number>();
  const enqueued: string[] = [];
  let transactions = 0;
  const accounts: AccountsStore = {
    transaction: () => {
      transactions += 1;
      return Promise.reject(new Error('no transaction expected'));
    },
    emailExists: (email) => Promise.resolve(opts.emails?.includes(email) ?? false),
    usernameExists: (username) => Promise.resolve(opts.usernames?.includes(username) ?? false),
    findByEmail: () => Promise.resolve(opts.account ? { user: opts.account.user as TokenUser, addressVerified: opts.account.addressVerified } : null),
  };
  const redis = {
    set: (key: string, _v: string, _ex: string, seconds: number) => {
      if (keys.has(key)) return Promise.resolve(null);
      keys.set(key, seconds);
      return Promise.resolve('OK');
    },
    ttl: (key: string) => Promise.resolve(keys.has(key) ? keys.get(key)! - 18 : -2),
  } as unknown as Pick<Redis, 'set' | 'ttl'>;
  const mailRequests = {
    enqueue: (kind: string, email: string) => {
      enqueued.push(`${kind} ${email}`);
      return Promise.resolve();
    },
  };
  const service = new AccountsService(accounts, config, new Links(config), redis, () => undefined, mailRequests);
  return { service, enqueued, transactions: () => transactions };
}

const yearsAgo = (years: number, days = 0) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

const body = (overrides: Partial<AccountRegisterBody> = {}): AccountRegisterBody => ({
  email: 'ann@example.com',
  displayName: 'Ann',
  password: 'a long enough passphrase',
  dateOfBirth: yearsAgo(20),
  captchaToken: 'human',
  ...overrides,
});

describe('AUTH-5 register', () => {
  it('answers CAPTCHA_FAILED without a valid captcha token', async () => {
    const { service } = setup();
    await expect(service.register(body({ captchaToken: null }), 'c')).rejects.toMatchObject({ code: 'CAPTCHA_FAILED' });
    await expect(service.register(body({ captchaToken: 'robot' }), 'c')).rejects.toMatchObject({ code: 'CAPTCHA_FAILED' });
  });

  it('refuses anyone under 13 (field dateOfBirth), counting the birthday itself', async () => {
    const { service } = setup({ emails: ['ann@example.com'] });
    await expect(service.register(body({ dateOfBirth: yearsAgo(13, 1) }), 'c')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'dateOfBirth' }],
    });
    // Exactly 13 today passes the age rule (and then meets the taken address).
    await expect(service.register(body({ dateOfBirth: yearsAgo(13) }), 'c')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
  });

  it('refuses an invalid username (field username) and a weak password (WEAK_PASSWORD, field password)', async () => {
    const { service, transactions } = setup();
    await expect(service.register(body({ username: 'no spaces allowed' }), 'c')).rejects.toMatchObject({ errors: [{ field: 'username' }] });
    await expect(service.register(body({ password: 'ann@example.com' }), 'c')).rejects.toMatchObject({
      code: 'WEAK_PASSWORD',
      errors: [{ field: 'password' }],
    });
    expect(transactions()).toBe(0);
  });

  it('answers EMAIL_TAKEN and USERNAME_TAKEN before writing anything', async () => {
    const { service, transactions } = setup({ emails: ['taken@example.com'], usernames: ['ann'] });
    const account = { displayName: 'Ann', passwordHash: null, emailVerified: true };
    await expect(service.createAccount({ ...account, email: 'taken@example.com' }, 'c')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    await expect(service.createAccount({ ...account, email: 'new@example.com', username: 'ann' }, 'c')).rejects.toMatchObject({ code: 'USERNAME_TAKEN' });
    expect(transactions()).toBe(0);
  });
});

describe('AUTH-7 resend verification (R13)', () => {
  it('answers the same for any address, then RESEND_COOLDOWN with retry-after within the cooldown', async () => {
    const { service, enqueued } = setup();
    await expect(service.resendVerification('ann@example.com')).resolves.toMatchObject({ coolDown: RESEND_COOLDOWN_SECONDS });
    await expect(service.resendVerification('ANN@example.com')).rejects.toMatchObject({ code: 'RESEND_COOLDOWN', headers: { 'retry-after': '42' } });
    await expect(service.resendVerification('nobody@example.com')).resolves.toMatchObject({ coolDown: RESEND_COOLDOWN_SECONDS });
    expect(enqueued).toEqual(['VERIFY_EMAIL ann@example.com', 'VERIFY_EMAIL nobody@example.com']);
  });

  it('sends nothing for an unknown address, a verified one, or one that is not the primary address', async () => {
    await expect(setup().service.sendVerification('a@example.com')).resolves.toBe('none');
    await expect(setup({ account: { user: { email: 'a@example.com' }, addressVerified: true } }).service.sendVerification('a@example.com')).resolves.toBe(
      'none',
    );
    await expect(
      setup({ account: { user: { email: 'primary@example.com' }, addressVerified: false } }).service.sendVerification('a@example.com'),
    ).resolves.toBe('none');
  });
});

describe('AUTH-15 availability', () => {
  it('names the field that is not available', async () => {
    const { service } = setup({ emails: ['ann@example.com'], usernames: ['ann'] });
    await expect(service.checkAvailability({ email: 'ANN@example.com' })).resolves.toMatchObject({ isAvailable: false, errorField: 'email' });
    await expect(service.checkAvailability({ username: 'ann' })).resolves.toMatchObject({ isAvailable: false, errorField: 'username' });
    await expect(service.checkAvailability({ username: 'bad name' })).resolves.toMatchObject({ isAvailable: false, errorField: 'username' });
    await expect(service.checkAvailability({ email: 'new@example.com', username: 'new.name' })).resolves.toEqual({
      isAvailable: true,
      message: 'Available.',
      errorField: null,
    });
  });
});
