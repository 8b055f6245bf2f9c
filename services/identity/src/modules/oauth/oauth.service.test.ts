import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { IssuedTokens } from '../sessions/sessions.service.js';
import type { GoogleIdentity } from './google.client.js';
import type { OAuthStore } from './oauth.repository.js';
import { OAuthService } from './oauth.service.js';

const config = {
  WEB_BASE_URL: 'https://web.test',
  PUBLIC_BASE_URL: 'https://api.test/',
  S3_ENDPOINT: 'https://s3.test',
  S3_BUCKET: 'media',
  GOOGLE_AUTH_URL: 'https://accounts.example/auth',
  GOOGLE_CLIENT_ID: 'client-1',
} as IdentityConfig;
const client = { ip: '203.0.113.1', userAgent: 'vitest' };

const tokenUser = (id: number, overrides: Partial<TokenUser> = {}): TokenUser =>
  ({ id, email: `u${id}@example.com`, username: `u${id}`, role: 'LISTENER', isBanned: false, suspendedUntil: null, deleteAt: null, ...overrides }) as TokenUser;

interface Account {
  user: TokenUser;
  addressVerified: boolean;
  googleSub: string | null;
  passwordHash: string | null;
}

/** Accounts by address and provider subject; Redis as a Map; Google answering the identity of a token. */
function setup(accounts: Account[], identities: Record<string, GoogleIdentity>) {
  const log: string[] = [];
  const redis = new Map<string, string>();
  let nextId = 100;
  const repo: OAuthStore = {
    userIdBySubject: (sub) => Promise.resolve(accounts.find((a) => a.googleSub === sub)?.user.id ?? null),
    findTokenUser: (id) => Promise.resolve(accounts.find((a) => a.user.id === id)?.user ?? null),
    findAccountByEmail: (email) => Promise.resolve(accounts.find((a) => a.user.email === email) ?? null),
    linkSubject: (id, sub, dropPassword) => {
      const account = accounts.find((a) => a.user.id === id)!;
      if (account.googleSub) return Promise.resolve(false);
      account.googleSub = sub;
      if (dropPassword) account.passwordHash = null;
      return Promise.resolve(true);
    },
    markAddressVerified: (id) => {
      accounts.find((a) => a.user.id === id)!.addressVerified = true;
      return Promise.resolve();
    },
  };
  const google = {
    configured: true,
    verifyIdToken: (token: string) => (identities[token] ? Promise.resolve(identities[token]) : Promise.reject(new AppError('INVALID_IDP_TOKEN'))),
    exchangeCode: (code: string) => Promise.resolve(code === 'good-code' ? 'a.b.c' : 'x.y.z'),
  };
  const accountsService = {
    checkCaptcha: () => undefined,
    createAccount: (input: { email: string; googleSub?: string | null; displayName: string }) => {
      const user = tokenUser(nextId++, { email: input.email, displayName: input.displayName });
      accounts.push({ user, addressVerified: true, googleSub: input.googleSub ?? null, passwordHash: null });
      log.push(`created ${input.email} as ${input.displayName}`);
      return Promise.resolve(user);
    },
  } as unknown as ConstructorParameters<typeof OAuthService>[2];
  const sessions = {
    revokeAllOf: (id: number, reason: string) => {
      log.push(`revokeAll ${id} ${reason}`);
      return Promise.resolve();
    },
    start: (user: TokenUser, _c: unknown, o: { isNewUser?: boolean }) => {
      log.push(`start ${user.id} new=${o.isNewUser}`);
      return Promise.resolve({ sessionId: `s-${user.id}` } as IssuedTokens);
    },
  };
  const fakeRedis = {
    set: (key: string, value: string) => {
      redis.set(key, value);
      return Promise.resolve('OK');
    },
    getdel: (key: string) => {
      const value = redis.get(key) ?? null;
      redis.delete(key);
      return Promise.resolve(value);
    },
  } as unknown as Pick<Redis, 'set' | 'getdel'>;
  const service = new OAuthService(repo, google, accountsService, sessions, fakeRedis, new Links(config), config);
  return { service, log, accounts };
}

const identity = (sub: string, email: string | null, emailVerified = true): GoogleIdentity => ({ sub, email, emailVerified, name: 'Ann Example' });

describe('AUTH-13 Google ID token login: which account', () => {
  it('logs in the account linked to the subject', async () => {
    const { service, log } = setup([{ user: tokenUser(1), addressVerified: true, googleSub: 'g-1', passwordHash: 'h' }], {
      'a.b.c': identity('g-1', 'other@example.com'),
    });
    await expect(service.loginWithIdToken('a.b.c', client, 'c')).resolves.toMatchObject({ sessionId: 's-1' });
    expect(log).toEqual(['start 1 new=false']);
  });

  it("links a verified account's address, keeping its password and sessions", async () => {
    const { service, log, accounts } = setup([{ user: tokenUser(1), addressVerified: true, googleSub: null, passwordHash: 'h' }], {
      'a.b.c': identity('g-9', 'u1@example.com'),
    });
    await service.loginWithIdToken('a.b.c', client, 'c');
    expect(accounts[0]).toMatchObject({ googleSub: 'g-9', passwordHash: 'h' });
    expect(log).toEqual(['start 1 new=false']);
  });

  it('pre-hijacking: linking an account whose address was never verified drops its password and sessions', async () => {
    const { service, log, accounts } = setup([{ user: tokenUser(1), addressVerified: false, googleSub: null, passwordHash: 'h' }], {
      'a.b.c': identity('g-9', 'u1@example.com'),
    });
    await service.loginWithIdToken('a.b.c', client, 'c');
    expect(accounts[0]).toMatchObject({ googleSub: 'g-9', passwordHash: null, addressVerified: true });
    expect(log).toEqual(['revokeAll 1 idp-link', 'start 1 new=false']);
  });

  it('answers INVALID_IDP_TOKEN for an unconfirmed address or an account linked to another subject', async () => {
    const { service } = setup([{ user: tokenUser(1), addressVerified: true, googleSub: 'g-other', passwordHash: 'h' }], {
      unverified: identity('g-2', 'x@example.com', false),
      other: identity('g-3', 'u1@example.com'),
    });
    await expect(service.loginWithIdToken('unverified', client, 'c')).rejects.toMatchObject({ code: 'INVALID_IDP_TOKEN' });
    await expect(service.loginWithIdToken('other', client, 'c')).rejects.toMatchObject({ code: 'INVALID_IDP_TOKEN' });
  });

  it('refuses an admin account (INVALID_CREDENTIALS) and a banned one (ACCOUNT_BANNED)', async () => {
    const { service } = setup(
      [
        { user: tokenUser(1, { role: 'ADMIN' }), addressVerified: true, googleSub: null, passwordHash: 'h' },
        { user: tokenUser(2, { isBanned: true }), addressVerified: true, googleSub: 'g-2', passwordHash: 'h' },
      ],
      { admin: identity('g-1', 'u1@example.com'), banned: identity('g-2', 'u2@example.com') },
    );
    await expect(service.loginWithIdToken('admin', client, 'c')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    await expect(service.loginWithIdToken('banned', client, 'c')).rejects.toMatchObject({ code: 'ACCOUNT_BANNED' });
  });

  it('creates a verified account for a new identity', async () => {
    const { service, log } = setup([], { 'a.b.c': identity('g-5', 'new@example.com') });
    await expect(service.loginWithIdToken('a.b.c', client, 'c')).resolves.toMatchObject({ sessionId: 's-100' });
    expect(log).toEqual(['created new@example.com as Ann Example', 'start 100 new=true']);
  });
});

describe('AUTH-14 Google registration', () => {
  it('answers EMAIL_TAKEN when the identity already has an account, and validates the username first', async () => {
    const { service } = setup([{ user: tokenUser(1), addressVerified: true, googleSub: 'g-1', passwordHash: null }], {
      tok: identity('g-1', 'u1@example.com'),
    });
    await expect(service.register({ idToken: 'tok' }, 'c')).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    await expect(service.register({ idToken: 'tok', username: 'Not Valid' }, 'c')).rejects.toMatchObject({ errors: [{ field: 'username' }] });
  });
});

describe('AUTH-10 / AUTH-11 / AUTH-12 redirect flow', () => {
  it('carries state through the callback to a one-time code that AUTH-12 exchanges once', async () => {
    const { service } = setup([{ user: tokenUser(1), addressVerified: true, googleSub: 'g-1', passwordHash: null }], {
      'a.b.c': identity('g-1', 'u1@example.com'),
    });
    const consent = new URL(await service.authorizationUrl('/stream'));
    expect(consent.searchParams.get('redirect_uri')).toBe('https://api.test/api/login/oauth2/code/google');
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    const state = consent.searchParams.get('state')!;
    const back = new URL(await service.callback({ code: 'good-code', state }, 'c'));
    expect(back.origin + back.pathname).toBe('https://web.test/oauth/callback');
    expect(back.searchParams.get('returnTo')).toBe('/stream');
    const otc = back.searchParams.get('code')!;
    expect(otc).toMatch(/^otc_/);
    await expect(service.exchange(otc, null, client, 'c')).resolves.toMatchObject({ sessionId: 's-1' });
    await expect(service.exchange(otc, null, client, 'c')).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('redirects with an error code for an unknown state, a provider error, or a refused identity', async () => {
    const { service } = setup([], {});
    expect(await service.callback({ code: 'good-code', state: 'forged' }, 'c')).toBe('https://web.test/oauth/callback?error=INVALID_TOKEN');
    const state1 = new URL(await service.authorizationUrl(undefined)).searchParams.get('state')!;
    expect(await service.callback({ error: 'access_denied', state: state1 }, 'c')).toBe('https://web.test/oauth/callback?error=INVALID_IDP_TOKEN');
    const state2 = new URL(await service.authorizationUrl(undefined)).searchParams.get('state')!;
    expect(await service.callback({ code: 'good-code', state: state2 }, 'c')).toBe('https://web.test/oauth/callback?error=INVALID_IDP_TOKEN');
  });
});
