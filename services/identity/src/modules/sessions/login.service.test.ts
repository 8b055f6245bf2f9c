import { beforeAll, describe, expect, it } from 'vitest';
import type { TokenUser } from '../accounts/accounts.repository.js';
import { hashPassword } from '../accounts/passwords.js';
import type { KnownDevice } from './known-devices.repository.js';
import { LoginService, type SecondStep } from './login.service.js';
import type { IssuedTokens } from './sessions.service.js';
import type { Refusal } from './throttle.js';

const PASSWORD = 'correct horse battery staple';
let hash: string;
beforeAll(async () => {
  hash = await hashPassword(PASSWORD);
});

const client = { ip: '203.0.113.1', userAgent: 'vitest', knownDevice: null };
const user = (overrides: Partial<TokenUser> = {}): TokenUser => ({
  id: 7,
  email: 'ann@example.com',
  username: 'ann',
  displayName: 'Ann',
  role: 'LISTENER',
  tier: 'FREE',
  avatarKey: null,
  passwordHash: hash,
  emailVerified: true,
  isBanned: false,
  suspendedUntil: null,
  deleteAt: null,
  ...overrides,
});

/** One account by address; a throttle that refuses when told; what was counted in `log`. */
function setup(account: { user: TokenUser; addressVerified: boolean } | null, opts: { refusal?: Refusal; device?: KnownDevice; secondStep?: SecondStep } = {}) {
  const log: string[] = [];
  const repo = {
    findAccountByEmail: (email: string) => Promise.resolve(account && email === account.user.email ? account : null),
    upgradePasswordHash: () => Promise.resolve(),
  };
  const sessions = {
    start: (u: TokenUser, _c: unknown, o: { refreshable: boolean }) => {
      log.push(`start ${u.id} refreshable=${o.refreshable}`);
      return Promise.resolve({
        sessionId: 's-1',
        refreshToken: null,
        response: { accessToken: 'at', expiresIn: 900, user: { avatarUrl: null } },
      } as unknown as IssuedTokens);
    },
  };
  const throttle = {
    devicePasses: (device: KnownDevice | null, userId: number | null) => Promise.resolve(device !== null && device.userId === userId),
    check: () => Promise.resolve(opts.refusal ?? null),
    recordFailure: (subject: string) => {
      log.push(`failure ${subject}`);
      return Promise.resolve();
    },
    clear: (subject: string) => {
      log.push(`clear ${subject}`);
      return Promise.resolve();
    },
  };
  const devices = {
    find: () => Promise.resolve(opts.device ?? null),
    remember: () => Promise.resolve('device-token'),
  };
  return { login: new LoginService(repo, sessions, throttle, devices, opts.secondStep ?? null), log };
}

describe('AUTH-1 login (R13)', () => {
  it('opens a refreshable session for the right password and remembers the device', async () => {
    const { login, log } = setup({ user: user(), addressVerified: true });
    await expect(login.loginLocal('ann@example.com', PASSWORD, client)).resolves.toMatchObject({ knownDevice: 'device-token', issued: { sessionId: 's-1' } });
    expect(log).toEqual(['clear user:7', 'start 7 refreshable=true']);
  });

  it('answers INVALID_CREDENTIALS alike for a wrong password and an unknown address, counting each failure', async () => {
    const { login, log } = setup({ user: user(), addressVerified: true });
    await expect(login.loginLocal('ann@example.com', 'wrong', client)).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    await expect(login.loginLocal('nobody@example.com', PASSWORD, client)).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(log).toEqual(['failure user:7', expect.stringMatching(/^failure email:/)]);
  });

  it('refuses with RATE_LIMITED and a retry-after before checking the password', async () => {
    const { login, log } = setup({ user: user(), addressVerified: true }, { refusal: { limit: 'account', retryMs: 30_500 } });
    await expect(login.loginLocal('ann@example.com', PASSWORD, client)).rejects.toMatchObject({ code: 'RATE_LIMITED', headers: { 'retry-after': '31' } });
    expect(log).toEqual([]);
  });

  it("lets the account's known device past the limits", async () => {
    const { login } = setup({ user: user(), addressVerified: true }, { refusal: { limit: 'address', retryMs: 1000 }, device: { id: 3, userId: 7 } });
    await expect(login.loginLocal('ann@example.com', PASSWORD, client)).resolves.toMatchObject({ issued: { sessionId: 's-1' } });
  });

  it('reveals the account state only after the right password: EMAIL_NOT_VERIFIED, ACCOUNT_BANNED; an admin is INVALID_CREDENTIALS', async () => {
    await expect(setup({ user: user(), addressVerified: false }).login.loginLocal('ann@example.com', PASSWORD, client)).rejects.toMatchObject({
      code: 'EMAIL_NOT_VERIFIED',
    });
    await expect(setup({ user: user({ isBanned: true }), addressVerified: true }).login.loginLocal('ann@example.com', PASSWORD, client)).rejects.toMatchObject({
      code: 'ACCOUNT_BANNED',
    });
    await expect(setup({ user: user({ role: 'ADMIN' }), addressVerified: true }).login.loginLocal('ann@example.com', PASSWORD, client)).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
    await expect(setup({ user: user({ isBanned: true }), addressVerified: true }).login.loginLocal('ann@example.com', 'wrong', client)).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
  });

  it('answers mfaRequired without a session when two-factor sign-in is on', async () => {
    const secondStep: SecondStep = { challenge: () => Promise.resolve('mfa-token') };
    const { login, log } = setup({ user: user(), addressVerified: true }, { secondStep });
    await expect(login.loginLocal('ann@example.com', PASSWORD, client)).resolves.toEqual({ mfaRequired: true, mfaToken: 'mfa-token' });
    expect(log).toEqual(['clear user:7']);
  });
});

describe('MOD-1 admin login (R13)', () => {
  it('opens a non-refreshable session for an admin only', async () => {
    const admin = setup({ user: user({ role: 'ADMIN' }), addressVerified: true });
    await expect(admin.login.loginAdmin('ann@example.com', PASSWORD, client)).resolves.toMatchObject({ accessToken: 'at', adminUser: { id: 7 } });
    expect(admin.log).toContain('start 7 refreshable=false');
    await expect(setup({ user: user(), addressVerified: true }).login.loginAdmin('ann@example.com', PASSWORD, client)).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
  });
});
