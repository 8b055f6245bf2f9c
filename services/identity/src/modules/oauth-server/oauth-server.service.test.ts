import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { IdentityConfig } from '../../config.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { AppsRepository, StoredApp } from '../apps/apps.repository.js';
import type { AppsService } from '../apps/apps.service.js';
import type { SigningKeyService } from '../keys/keys.service.js';
import { OAuthServerService, type AuthorizeParams, type OAuthHttpRequest } from './oauth-server.service.js';

const config = {
  PUBLIC_BASE_URL: 'https://api.test/',
  ACCESS_TOKEN_TTL_SECONDS: 900,
  REFRESH_TOKEN_TTL_SECONDS: 86_400,
  JWT_ISSUER: 'msp-identity',
} as IdentityConfig;
const client = { ip: '203.0.113.1', userAgent: 'vitest' };
const raw: OAuthHttpRequest = { method: 'POST', headers: {}, query: {}, body: {} };
const CALLBACK = 'https://app.example/cb';

const app = (overrides: Partial<StoredApp> = {}): StoredApp => ({
  id: 3,
  ownerId: 1,
  clientId: 'app_1',
  name: 'Player',
  redirectUris: [CALLBACK],
  homepageUrl: null,
  confidential: false,
  secretHash: null,
  suspendedAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...overrides,
});

const user = (overrides: Partial<TokenUser> = {}) =>
  ({ id: 7, role: 'LISTENER', isBanned: false, suspendedUntil: null, deleteAt: null, ...overrides }) as TokenUser;

/**
 * The consent rules only: the app registry and the sign-in steps are fakes (the library's grant
 * issuing is covered by the integration tests). Collaborators the rules never reach are empty casts.
 */
function setup(
  opts: {
    app?: StoredApp | null;
    login?: { user: TokenUser; addressVerified: boolean } | AppError;
    mfaToken?: string | null;
    confirm?: TokenUser | AppError;
  } = {},
) {
  const repo = {
    findByClientId: (id: string) => Promise.resolve(opts.app !== undefined ? opts.app : id === 'app_1' ? app() : null),
  } as unknown as AppsRepository;
  const login = {
    authenticate: () =>
      opts.login instanceof AppError
        ? Promise.reject(opts.login)
        : Promise.resolve({ presentedDevice: null, ...(opts.login ?? { user: user(), addressVerified: true }) }),
  };
  const secondFactor = {
    challenge: () => Promise.resolve(opts.mfaToken ?? null),
    confirmAttempt: () => (opts.confirm instanceof AppError ? Promise.reject(opts.confirm) : Promise.resolve(opts.confirm ?? user())),
  };
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as Logger;
  return new OAuthServerService(repo, {} as AppsService, {} as SigningKeyService, login, secondFactor, () => Promise.resolve(null), config, logger);
}

const request = (overrides: AuthorizeParams = {}): AuthorizeParams => ({
  response_type: 'code',
  client_id: 'app_1',
  redirect_uri: CALLBACK,
  scope: 'write read',
  state: 'xyz',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  ...overrides,
});

const redirectError = (outcome: Awaited<ReturnType<OAuthServerService['check']>>) => {
  if (outcome.kind !== 'redirect') throw new Error(`expected a redirect, got ${outcome.kind}`);
  const url = new URL(outcome.location);
  return { to: url.origin + url.pathname, error: url.searchParams.get('error'), state: url.searchParams.get('state'), iss: url.searchParams.get('iss') };
};

describe('APP-16 metadata (RFC 8414)', () => {
  it('announces S256 only and the endpoints under the public base URL', () => {
    const meta = setup().metadata();
    expect(meta).toMatchObject({ issuer: 'https://api.test', token_endpoint: 'https://api.test/api/oauth/token', code_challenge_methods_supported: ['S256'] });
  });
});

describe('APP-11 authorization request', () => {
  it('shows the consent page with the known scopes, read always included', async () => {
    const outcome = await setup().check(request({ scope: 'write' }));
    expect(outcome).toMatchObject({ kind: 'consent', scopes: ['read', 'write'], params: { state: 'xyz', client_id: 'app_1' } });
  });

  it('shows an error page, never a redirect, for an unknown or suspended app or an unregistered redirect URI', async () => {
    await expect(setup().check(request({ client_id: 'app_unknown' }))).resolves.toMatchObject({ kind: 'error-page', problem: { code: 'VALIDATION_FAILED' } });
    await expect(setup({ app: app({ suspendedAt: new Date() }) }).check(request())).resolves.toMatchObject({
      kind: 'error-page',
      problem: { code: 'FORBIDDEN' },
    });
    await expect(setup().check(request({ redirect_uri: 'https://app.example/cb/other' }))).resolves.toMatchObject({
      kind: 'error-page',
      problem: { errors: [{ field: 'redirect_uri' }] },
    });
  });

  it('sends any other problem back to the app with its state and iss: response type, PKCE S256, scope', async () => {
    const cases: Array<[AuthorizeParams, string]> = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ scope: 'read admin' }, 'invalid_scope'],
    ];
    for (const [change, error] of cases) {
      expect(redirectError(await setup().check(request(change)))).toEqual({ to: CALLBACK, error, state: 'xyz', iss: 'https://api.test' });
    }
  });
});

describe('APP-12 consent decision', () => {
  it('sends a denial back as access_denied', async () => {
    expect(redirectError(await setup().decide(request(), { decision: 'deny' }, client, raw))).toMatchObject({ error: 'access_denied', state: 'xyz' });
  });

  it('shows the page again for a missing password, a wrong one, an admin, a locked or an unverified account', async () => {
    const approve = { decision: 'approve', email: 'ann@example.com', password: 'secret password' };
    await expect(setup().decide(request(), { decision: 'approve', email: 'ann@example.com' }, client, raw)).resolves.toMatchObject({
      kind: 'consent',
      problem: { errors: [{ field: 'password' }] },
      email: 'ann@example.com',
    });
    await expect(setup({ login: new AppError('INVALID_CREDENTIALS') }).decide(request(), approve, client, raw)).resolves.toMatchObject({
      problem: { code: 'INVALID_CREDENTIALS' },
    });
    await expect(setup({ login: { user: user({ role: 'ADMIN' }), addressVerified: true } }).decide(request(), approve, client, raw)).resolves.toMatchObject({
      problem: { code: 'FORBIDDEN' },
    });
    await expect(setup({ login: { user: user({ isBanned: true }), addressVerified: true } }).decide(request(), approve, client, raw)).resolves.toMatchObject({
      problem: { code: 'ACCOUNT_BANNED' },
    });
    await expect(setup({ login: { user: user(), addressVerified: false } }).decide(request(), approve, client, raw)).resolves.toMatchObject({
      problem: { code: 'EMAIL_NOT_VERIFIED' },
    });
  });

  it('asks for the second factor of an account with two-factor sign-in, and keeps the code page on a wrong code', async () => {
    const approve = { decision: 'approve', email: 'ann@example.com', password: 'secret password' };
    await expect(setup({ mfaToken: 'mfa_1' }).decide(request(), approve, client, raw)).resolves.toMatchObject({ kind: 'consent', mfaToken: 'mfa_1' });
    await expect(setup().decide(request(), { decision: 'approve', mfaToken: 'mfa_1' }, client, raw)).resolves.toMatchObject({
      mfaToken: 'mfa_1',
      problem: { errors: [{ field: 'code' }] },
    });
    await expect(
      setup({ confirm: new AppError('INVALID_MFA_CODE') }).decide(request(), { decision: 'approve', mfaToken: 'mfa_1', code: '123456' }, client, raw),
    ).resolves.toMatchObject({
      mfaToken: 'mfa_1',
      problem: { code: 'INVALID_MFA_CODE' },
    });
    // An expired attempt goes back to the password page (no token).
    const expired = await setup({ confirm: new AppError('INVALID_MFA_TOKEN') }).decide(
      request(),
      { decision: 'approve', mfaToken: 'mfa_1', code: '123456' },
      client,
      raw,
    );
    expect(expired).toMatchObject({ kind: 'consent', problem: { code: 'INVALID_MFA_TOKEN' } });
    expect(expired).not.toHaveProperty('mfaToken');
  });
});
