import { beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import { hashPassword, verifyPassword } from '../accounts/passwords.js';
import type { KnownDevice } from '../sessions/known-devices.repository.js';
import type { EmailChangeOutcome, PasswordOwner, SecurityStore } from './security.repository.js';
import { SecurityService } from './security.service.js';

const config = {
  WEB_BASE_URL: 'https://web.test',
  S3_ENDPOINT: 'https://s3.test',
  S3_BUCKET: 'media',
  FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: 2,
  RESET_MAILS_PER_ACCOUNT_PER_HOUR: 3,
} as IdentityConfig;
const OLD = 'old password 1';
const NEW = 'a brand new passphrase';
let oldHash: string;
beforeAll(async () => {
  oldHash = await hashPassword(OLD);
});

const ann: PasswordOwner = { id: 7, email: 'ann@example.com', username: 'ann' };

/** One account (ann), its addresses and reset tokens in memory; what happened in `log`. */
function setup(opts: { role?: TokenUser['role']; passwordHash?: string | null; resetCapped?: boolean; emailOutcome?: EmailChangeOutcome | Error } = {}) {
  const log: string[] = [];
  let hash = opts.passwordHash === undefined ? oldHash : opts.passwordHash;
  const hits = new Map<string, number>();
  const addresses = new Map([
    ['ann@example.com', { userId: 7, isVerified: true }],
    ['ann2@example.com', { userId: 7, isVerified: false }],
    ['bob@example.com', { userId: 8, isVerified: true }],
  ]);
  const repo: SecurityStore = {
    findAccountByEmail: (email) =>
      Promise.resolve(
        addresses.get(email)?.userId === 7 ? { user: { id: 7, role: opts.role ?? 'LISTENER', displayName: 'Ann' } as TokenUser, addressVerified: true } : null,
      ),
    emailExists: (email) => Promise.resolve(addresses.has(email)),
    issueResetToken: (_id, email, cap, mail) => {
      if (opts.resetCapped) return Promise.resolve(false);
      log.push(`reset mail to ${email} cap ${cap}: ${mail('tok').text.includes('https://web.test/change-password?token=tok')}`);
      return Promise.resolve(true);
    },
    resetPassword: async (token, newHash) => {
      if (token !== 'good') return null;
      hash = await newHash(ann);
      return ann;
    },
    passwordOwner: (id) => Promise.resolve(id === 7 ? { ...ann, passwordHash: hash } : null),
    setPasswordHash: (_id, h) => {
      hash = h;
      return Promise.resolve();
    },
    displayNameOf: (id) => Promise.resolve(id === 7 ? { id, displayName: 'Ann' } : null),
    issueEmailChangeToken: (_id, purpose, email) => {
      log.push(`${purpose} ${email}`);
      return Promise.resolve();
    },
    applyEmailChange: () => (opts.emailOutcome instanceof Error ? Promise.reject(opts.emailOutcome) : Promise.resolve(opts.emailOutcome ?? 'changed')),
    emailAddress: (email) => Promise.resolve(addresses.get(email) ?? null),
    setPrimaryEmail: (_id, email) => {
      log.push(`primary ${email}`);
      return Promise.resolve();
    },
  };
  const redis = {
    eval: (_script: string, _n: number, key: string, windowMs: number) => {
      hits.set(key, (hits.get(key) ?? 0) + 1);
      return Promise.resolve([hits.get(key), windowMs]);
    },
  } as unknown as Pick<Redis, 'eval'>;
  const sessions = {
    revokeAllOf: (id: number, reason: string, except?: string | null) => {
      log.push(`revokeAll ${id} ${reason} except ${except ?? '-'}`);
      return Promise.resolve();
    },
  };
  const mailRequests = {
    enqueue: (kind: string, email: string) => {
      log.push(`enqueue ${kind} ${email}`);
      return Promise.resolve();
    },
  };
  const throttle = {
    clear: (subject: string) => {
      log.push(`clear ${subject}`);
      return Promise.resolve();
    },
  };
  const devices = {
    forgetAll: (id: number) => {
      log.push(`forgetAll ${id}`);
      return Promise.resolve();
    },
    find: (token: string | null | undefined) => Promise.resolve<KnownDevice | null>(token === 'dev' ? { id: 3, userId: 7 } : null),
    remember: (_id: number, device: KnownDevice | null) => Promise.resolve(device ? null : 'new-device'),
  };
  let mails = 0;
  const service = new SecurityService(repo, config, new Links(config), redis, sessions, () => void (mails += 1), mailRequests, throttle, devices);
  return { service, log, hash: () => hash, mails: () => mails };
}

describe('AUTH-8 forgot password (R13)', () => {
  it('answers the same whether or not the address has an account, and limits requests per client address', async () => {
    const { service, log } = setup();
    const answer = { message: 'If an account uses this address, a password reset link is on its way.' };
    await expect(service.forgotPassword('ann@example.com', '203.0.113.1')).resolves.toEqual(answer);
    await expect(service.forgotPassword('nobody@example.com', '203.0.113.1')).resolves.toEqual(answer);
    await expect(service.forgotPassword('ann@example.com', '203.0.113.1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(log).toEqual(['enqueue RESET_PASSWORD ann@example.com', 'enqueue RESET_PASSWORD nobody@example.com']);
  });

  it('mails a reset link to an account, never to an admin, and at most the hourly cap', async () => {
    const sent = setup();
    await expect(sent.service.sendPasswordReset('ann@example.com')).resolves.toBe('sent');
    expect(sent.log).toEqual(['reset mail to ann@example.com cap 3: true']);
    expect(sent.mails()).toBe(1);
    await expect(sent.service.sendPasswordReset('nobody@example.com')).resolves.toBe('none');
    await expect(setup({ role: 'ADMIN' }).service.sendPasswordReset('ann@example.com')).resolves.toBe('none');
    await expect(setup({ resetCapped: true }).service.sendPasswordReset('ann@example.com')).resolves.toBe('capped');
  });
});

describe('AUTH-9 reset password', () => {
  it('answers INVALID_TOKEN for an unknown token and WEAK_PASSWORD (field newPassword) for a weak one', async () => {
    const { service } = setup();
    await expect(service.resetPassword('bad', NEW, false, null)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(service.resetPassword('good', 'short', false, null)).rejects.toMatchObject({ code: 'WEAK_PASSWORD', errors: [{ field: 'newPassword' }] });
    await expect(service.resetPassword('good', 'ann@example.com', false, null)).rejects.toMatchObject({ code: 'WEAK_PASSWORD' });
  });

  it('lifts the login backoff, keeps a known device, and with logoutAll ends every session and forgets every device', async () => {
    const kept = setup();
    await expect(kept.service.resetPassword('good', NEW, false, 'dev')).resolves.toEqual({ message: 'Your password has been changed.', knownDevice: null });
    expect(kept.log).toEqual(['clear user:7']);
    expect(await verifyPassword(kept.hash()!, NEW)).toBe(true);

    const all = setup();
    await expect(all.service.resetPassword('good', NEW, true, 'dev')).resolves.toMatchObject({ knownDevice: 'new-device' });
    expect(all.log).toEqual(['clear user:7', 'revokeAll 7 password-reset except -', 'forgetAll 7']);
  });
});

describe('SEC-4 change password', () => {
  it('answers INVALID_CURRENT_PASSWORD for a wrong or missing current password', async () => {
    const { service, log } = setup();
    await expect(service.changePassword(7, 's-1', 'wrong', NEW)).rejects.toMatchObject({ code: 'INVALID_CURRENT_PASSWORD' });
    await expect(service.changePassword(7, 's-1', null, NEW)).rejects.toMatchObject({ code: 'INVALID_CURRENT_PASSWORD' });
    expect(log).toEqual([]);
  });

  it('changes it and revokes every other session; a password-less (Google) account needs no current one', async () => {
    await expect(setup({ passwordHash: null }).service.changePassword(7, 's-1', undefined, 'password')).rejects.toMatchObject({ code: 'WEAK_PASSWORD' });
    const { service, log } = setup({ passwordHash: null });
    await expect(service.changePassword(7, 's-1', undefined, NEW)).resolves.toMatchObject({ message: expect.stringContaining('Other sessions') });
    expect(log).toEqual(['revokeAll 7 password-change except s-1']);
  });
});

describe('SEC-1 / SEC-2 / USR-12 / USR-13 e-mail addresses', () => {
  it('answers EMAIL_TAKEN for an address in use, and mails a link to a free one', async () => {
    const { service, log, mails } = setup();
    await expect(service.startEmailChange(7, 'bob@example.com', 'CHANGE_EMAIL')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    await service.startEmailChange(7, 'new@example.com', 'ADD_EMAIL');
    expect(log).toEqual(['ADD_EMAIL new@example.com']);
    expect(mails()).toBe(1);
  });

  it('maps the outcome of the link: INVALID_TOKEN, ALREADY_VERIFIED, EMAIL_TAKEN (a unique violation too), changed, added', async () => {
    await expect(setup({ emailOutcome: 'invalid' }).service.verifyEmailChange('t')).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(setup({ emailOutcome: 'already' }).service.verifyEmailChange('t')).rejects.toMatchObject({ code: 'ALREADY_VERIFIED' });
    await expect(setup({ emailOutcome: 'taken' }).service.verifyEmailChange('t')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    const unique = Object.assign(new Error('Unique constraint failed'), { name: 'PrismaClientKnownRequestError', code: 'P2002', meta: { target: ['email'] } });
    await expect(setup({ emailOutcome: unique }).service.verifyEmailChange('t')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    const changed = setup({ emailOutcome: 'changed' });
    await expect(changed.service.verifyEmailChange('t')).resolves.toEqual({ message: 'Your e-mail address has been changed.' });
    expect(changed.mails()).toBe(1);
    await expect(setup({ emailOutcome: 'added' }).service.verifyEmailChange('t')).resolves.toEqual({ message: 'The address has been added to your account.' });
  });

  it("SEC-3 makes only one's own verified address primary", async () => {
    const { service, log } = setup();
    await expect(service.setPrimaryEmail(7, 'bob@example.com')).rejects.toMatchObject({ code: 'EMAIL_NOT_FOUND' });
    await expect(service.setPrimaryEmail(7, 'ann2@example.com')).rejects.toMatchObject({ code: 'EMAIL_UNVERIFIED' });
    await service.setPrimaryEmail(7, 'ann@example.com');
    expect(log).toEqual(['primary ann@example.com']);
  });
});
