import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { Links } from '../../links.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { usernameProblem } from '../accounts/username.js';
import { assertNotLocked, type ClientContext, type IssuedTokens, type SessionsService } from '../sessions/sessions.service.js';
import { hashSecret, randomSecret } from '../sessions/secrets.js';
import type { GoogleClient, GoogleIdentity } from './google.client.js';
import type { OAuthStore } from './oauth.repository.js';

const STATE_TTL_SECONDS = 600;
const OTC_TTL_SECONDS = 60;
const OTC_PREFIX = 'otc_';

interface PendingAuthorization {
  returnTo: string | null;
  codeVerifier: string;
  nonce: string;
}

/**
 * Identity-provider login (AUTH-10…AUTH-14). A provider identity is matched by its subject, else
 * linked to the account holding the same provider-verified e-mail, else a new verified account
 * is created. Linking to an account whose address was never verified drops that account's
 * password and sessions: whoever registered it without proving the address must not keep access
 * to the real owner's account (pre-hijacking).
 */
export class OAuthService {
  constructor(
    private readonly repo: OAuthStore,
    private readonly google: Pick<GoogleClient, 'configured' | 'verifyIdToken' | 'exchangeCode'>,
    private readonly accountsService: Pick<AccountsService, 'checkCaptcha' | 'createAccount'>,
    private readonly sessions: Pick<SessionsService, 'revokeAllOf' | 'start'>,
    private readonly redis: Pick<Redis, 'set' | 'getdel'>,
    private readonly links: Links,
    private readonly config: IdentityConfig,
  ) {}

  private get callbackUrl(): string {
    return `${this.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api/login/oauth2/code/google`;
  }

  /** Finds, links or creates the account of a verified provider identity. */
  async resolveAccount(identity: GoogleIdentity, correlationId: string): Promise<{ user: TokenUser; isNewUser: boolean }> {
    const linked = await this.repo.userIdBySubject(identity.sub);
    if (linked !== null) return { user: (await this.repo.findTokenUser(linked))!, isNewUser: false };
    if (!identity.email || !identity.emailVerified) throw new AppError('INVALID_IDP_TOKEN', 'The provider did not confirm an e-mail address.');
    const existing = await this.repo.findAccountByEmail(identity.email);
    if (existing) {
      if (existing.user.role === 'ADMIN') throw new AppError('INVALID_CREDENTIALS', 'Admin accounts log in through /admin/login.');
      await this.link(existing.user.id, identity, existing.addressVerified);
      return { user: (await this.repo.findTokenUser(existing.user.id))!, isNewUser: false };
    }
    const created = await this.accountsService.createAccount(
      {
        email: identity.email,
        displayName: (identity.name ?? identity.email.split('@')[0] ?? 'user').trim().slice(0, 50) || 'user',
        passwordHash: null,
        emailVerified: true,
        googleSub: identity.sub,
      },
      correlationId,
    );
    return { user: (await this.repo.findTokenUser(created.id))!, isNewUser: true };
  }

  private async link(userId: number, identity: GoogleIdentity, addressVerified: boolean): Promise<void> {
    const email = identity.email!;
    if (!(await this.repo.linkSubject(userId, identity.sub, !addressVerified)))
      throw new AppError('INVALID_IDP_TOKEN', 'This account is linked to another provider identity.');
    if (!addressVerified) {
      await this.repo.markAddressVerified(userId, email);
      await this.sessions.revokeAllOf(userId, 'idp-link');
    }
  }

  private async loginWith(identity: GoogleIdentity, client: ClientContext, correlationId: string): Promise<IssuedTokens> {
    const { user, isNewUser } = await this.resolveAccount(identity, correlationId);
    if (user.role === 'ADMIN') throw new AppError('INVALID_CREDENTIALS', 'Admin accounts log in through /admin/login.');
    assertNotLocked(user);
    return this.sessions.start(user, client, { refreshable: true, isNewUser });
  }

  /** AUTH-13: only the ID token counts. */
  async loginWithIdToken(idToken: string, client: ClientContext, correlationId: string): Promise<IssuedTokens> {
    return this.loginWith(await this.google.verifyIdToken(idToken), client, correlationId);
  }

  /** AUTH-12: a one-time code from AUTH-11, an ID token, or an authorization code. */
  async exchange(authToken: string, redirectUri: string | null | undefined, client: ClientContext, correlationId: string): Promise<IssuedTokens> {
    if (authToken.startsWith(OTC_PREFIX)) {
      const raw = await this.redis.getdel(`auth:otc:${hashSecret(authToken)}`);
      if (!raw) throw new AppError('INVALID_TOKEN', 'This one-time code is invalid, used or expired.');
      const { userId, isNewUser } = JSON.parse(raw) as { userId: number; isNewUser: boolean };
      const user = await this.repo.findTokenUser(userId);
      if (!user) throw new AppError('INVALID_TOKEN', 'This one-time code is invalid, used or expired.');
      assertNotLocked(user);
      return this.sessions.start(user, client, { refreshable: true, isNewUser });
    }
    if (authToken.split('.').length === 3) return this.loginWithIdToken(authToken, client, correlationId);
    const idToken = await this.google.exchangeCode(authToken, redirectUri ?? this.links.webUrl('/oauth/callback'));
    return this.loginWithIdToken(idToken, client, correlationId);
  }

  /** AUTH-14. */
  async register(
    body: {
      idToken: string;
      displayName?: string | null;
      username?: string | null;
      city?: string | null;
      country?: string | null;
      captchaToken?: string | null;
    },
    correlationId: string,
  ) {
    this.accountsService.checkCaptcha(body.captchaToken);
    if (body.username) {
      const problem = usernameProblem(body.username);
      if (problem) throw AppError.validation([{ field: 'username', message: problem }]);
    }
    const identity = await this.google.verifyIdToken(body.idToken);
    if (!identity.email || !identity.emailVerified) throw new AppError('INVALID_IDP_TOKEN', 'The provider did not confirm an e-mail address.');
    if ((await this.repo.userIdBySubject(identity.sub)) !== null) throw new AppError('EMAIL_TAKEN', 'This account already exists; log in instead.');
    const user = await this.accountsService.createAccount(
      {
        email: identity.email,
        displayName: body.displayName ?? ((identity.name ?? identity.email.split('@')[0] ?? 'user').trim().slice(0, 50) || 'user'),
        username: body.username ?? null,
        passwordHash: null,
        emailVerified: true,
        googleSub: identity.sub,
        city: body.city ?? null,
        country: body.country ?? null,
      },
      correlationId,
    );
    return { message: 'Registration successful. You can log in with Google now.', userId: user.id, username: user.username };
  }

  /** AUTH-10: the provider's consent page, with state, nonce and PKCE kept server-side for 10 min. */
  async authorizationUrl(returnTo: string | undefined): Promise<string> {
    if (!this.google.configured) throw new AppError('PROVIDER_ERROR', 'Identity-provider login is not configured.');
    const state = randomSecret();
    const pending: PendingAuthorization = { returnTo: returnTo ?? null, codeVerifier: randomSecret(48), nonce: randomSecret(16) };
    await this.redis.set(`auth:oauth-state:${hashSecret(state)}`, JSON.stringify(pending), 'EX', STATE_TTL_SECONDS);
    const url = new URL(this.config.GOOGLE_AUTH_URL);
    url.search = new URLSearchParams({
      client_id: this.config.GOOGLE_CLIENT_ID ?? '',
      redirect_uri: this.callbackUrl,
      response_type: 'code',
      scope: 'openid email profile',
      state,
      nonce: pending.nonce,
      code_challenge: createHash('sha256').update(pending.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      prompt: 'select_account',
    }).toString();
    return url.toString();
  }

  /** AUTH-11: always a redirect to the web app, with a 60-s one-time code or an error code. */
  async callback(query: { code?: string; state: string; error?: string }, correlationId: string): Promise<string> {
    const raw = await this.redis.getdel(`auth:oauth-state:${hashSecret(query.state)}`);
    if (!raw) return this.links.webUrl(`/oauth/callback?error=INVALID_TOKEN`);
    const pending = JSON.parse(raw) as PendingAuthorization;
    const back = pending.returnTo ? `&returnTo=${encodeURIComponent(pending.returnTo)}` : '';
    if (query.error || !query.code) return this.links.webUrl(`/oauth/callback?error=INVALID_IDP_TOKEN${back}`);
    try {
      const idToken = await this.google.exchangeCode(query.code, this.callbackUrl, pending.codeVerifier);
      const identity = await this.google.verifyIdToken(idToken, pending.nonce);
      const { user, isNewUser } = await this.resolveAccount(identity, correlationId);
      if (user.role === 'ADMIN') throw new AppError('INVALID_CREDENTIALS');
      assertNotLocked(user);
      const otc = `${OTC_PREFIX}${randomSecret()}`;
      await this.redis.set(`auth:otc:${hashSecret(otc)}`, JSON.stringify({ userId: user.id, isNewUser }), 'EX', OTC_TTL_SECONDS);
      return this.links.webUrl(`/oauth/callback?code=${encodeURIComponent(otc)}${back}`);
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'PROVIDER_ERROR';
      return this.links.webUrl(`/oauth/callback?error=${code}${back}`);
    }
  }
}
