import { randomUUID } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { AccessTokenClaimsSchema, APP_SCOPES, type AppScope } from '@msp/contracts';
import { AppError, type ErrorCode } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { IdentityConfig } from '../../config.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { AppsRepository, StoredApp } from '../apps/apps.repository.js';
import { secretMatches, type AppsService } from '../apps/apps.service.js';
import type { SigningKeyService } from '../keys/keys.service.js';
import type { LoginService } from '../sessions/login.service.js';
import type { MfaService } from '../mfa/mfa.service.js';
import { assertNotLocked, type ClientContext } from '../sessions/sessions.service.js';
import { createModel, normaliseScopes, type GrantUser } from './oauth-model.js';

const CODE_LIFETIME_SECONDS = 60;

/** The parameters of an authorization request (query of APP-11, hidden fields of APP-12). */
export const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

/** What the consent endpoints answer: a page to show, or the redirect back to the app. */
export type ConsentOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'error-page'; problem: AppError }
  | {
      kind: 'consent';
      app: StoredApp;
      scopes: AppScope[];
      params: Record<string, string>;
      problem?: AppError;
      email?: string;
      /** Set once the password was right for an account with two-factor sign-in: the page asks for the code. */
      mfaToken?: string;
    };

/** What the consent form posts besides the authorization request's parameters. */
export interface ConsentForm {
  decision?: string;
  email?: string;
  password?: string;
  /** The second step (account with TOTP): the attempt's token, and a current code or a recovery code. */
  mfaToken?: string;
  code?: string;
  recoveryCode?: string;
}

const invalid = (field: string, message: string) => AppError.validation([{ field, message }], message);

/** What the token, revocation and introspection endpoints answer (RFC 6749 / 7009 / 7662 bodies). */
export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

export interface OAuthHttpRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string>;
  body: Record<string, string>;
}

/** The platform's ErrorCode next to the OAuth error of a 4xx/5xx body. */
const CODE_OF: Record<string, ErrorCode> = {
  invalid_client: 'UNAUTHORIZED',
  invalid_grant: 'INVALID_TOKEN',
  invalid_request: 'VALIDATION_FAILED',
  invalid_scope: 'VALIDATION_FAILED',
  unauthorized_client: 'FORBIDDEN',
  unsupported_grant_type: 'VALIDATION_FAILED',
  server_error: 'INTERNAL_ERROR',
};

function headersOf(request: OAuthHttpRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') out[name] = value;
  return out;
}

function withQuery(base: string, query: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The OAuth 2.1 authorization server (docs/developer-platform.md): authorization code with PKCE
 * (S256 only), rotating refresh tokens, RFC 7009 revocation, RFC 7662 introspection, RFC 8414
 * metadata. The grants themselves run in @node-oauth/oauth2-server (oauth-model.ts); this class
 * checks what the library leaves optional (PKCE required, exact redirect URI, known scopes, a
 * usable app), signs the user in on the consent page, and renders the answers.
 */
export class OAuthServerService {
  private readonly authorizeServer: OAuth2Server;
  private readonly tokenServer: OAuth2Server;
  private readonly issuer: string;

  constructor(
    private readonly repo: AppsRepository,
    private readonly apps: AppsService,
    private readonly keys: SigningKeyService,
    private readonly login: Pick<LoginService, 'authenticate'>,
    private readonly secondFactor: Pick<MfaService, 'challenge' | 'confirmAttempt'>,
    findTokenUser: (userId: number) => Promise<TokenUser | null>,
    private readonly config: IdentityConfig,
    private readonly logger: Logger,
  ) {
    const deps = {
      repo,
      keys,
      findTokenUser,
      revokeGrant: (grantId: string, reason: string) => this.revokeGrant(grantId, reason),
      accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      jwtIssuer: config.JWT_ISSUER,
    };
    this.authorizeServer = new OAuth2Server({
      model: createModel(deps, { authenticateClients: false }),
      authorizationCodeLifetime: CODE_LIFETIME_SECONDS,
      allowEmptyState: true,
    });
    this.tokenServer = new OAuth2Server({
      model: createModel(deps, { authenticateClients: true }),
      accessTokenLifetime: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenLifetime: config.REFRESH_TOKEN_TTL_SECONDS,
      // Public apps refresh with their client id alone; confidential ones still authenticate (model).
      requireClientAuthentication: { refresh_token: false },
      alwaysIssueNewRefreshToken: true,
    });
    this.issuer = config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }

  /** RFC 8414 metadata (APP-16 and the root `/.well-known/oauth-authorization-server`). */
  metadata() {
    const api = `${this.issuer}/api`;
    const authMethods = ['client_secret_basic', 'client_secret_post', 'none'];
    return {
      issuer: this.issuer,
      authorization_endpoint: `${api}/oauth/authorize`,
      token_endpoint: `${api}/oauth/token`,
      revocation_endpoint: `${api}/oauth/revoke`,
      introspection_endpoint: `${api}/oauth/introspect`,
      scopes_supported: [...APP_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      // RFC 9207: the redirect back to the app carries `iss`.
      authorization_response_iss_parameter_supported: true,
      token_endpoint_auth_methods_supported: authMethods,
      revocation_endpoint_auth_methods_supported: authMethods,
      introspection_endpoint_auth_methods_supported: authMethods,
      service_documentation: `${this.issuer}/api/docs`,
    };
  }

  /**
   * Checks an authorization request. Unknown or suspended app, or a redirect URI that is not one
   * of the app's exactly: an error page (never a redirect to an unverified address). Anything else
   * wrong goes back to the app as `error=` on its redirect URI.
   */
  async check(params: AuthorizeParams): Promise<ConsentOutcome> {
    const clientId = params.client_id;
    const app = clientId && clientId.length <= 100 ? await this.repo.findByClientId(clientId) : null;
    if (!app) return { kind: 'error-page', problem: invalid('client_id', 'Unknown app (client_id).') };
    if (app.suspendedAt) return { kind: 'error-page', problem: new AppError('FORBIDDEN', 'This app has been suspended.') };
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !app.redirectUris.includes(redirectUri)) {
      return { kind: 'error-page', problem: invalid('redirect_uri', 'The redirect_uri is not registered for this app.') };
    }
    const back = (error: string, description: string): ConsentOutcome => ({
      kind: 'redirect',
      location: withQuery(redirectUri, { error, error_description: description, state: params.state, iss: this.issuer }),
    });
    if (params.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE)');
    if (params.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
    if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(params.code_challenge)) return back('invalid_request', 'code_challenge is malformed');
    const scopes = normaliseScopes(params.scope ? params.scope.split(' ').filter(Boolean) : []);
    if (!scopes) return back('invalid_scope', `scope must be among: ${APP_SCOPES.join(' ')}`);
    const kept: Record<string, string> = {};
    for (const name of AUTHORIZE_PARAMS) {
      const value = params[name];
      if (value !== undefined) kept[name] = value;
    }
    return { kind: 'consent', app, scopes, params: kept };
  }

  /**
   * APP-12: Deny goes back with `access_denied`; Approve signs the user in with e-mail and
   * password (the checks of AUTH-1: throttling, verified address, no banned or suspended account,
   * no admin account) and lets the library issue the code on a new grant. An account with
   * two-factor sign-in gets the page again asking for its code (or a recovery code) with the
   * attempt's token (MfaService `challenge`, 5 min, same User-Agent); the code is checked under
   * MFA-4's throttle and the token is single use.
   */
  async decide(params: AuthorizeParams, form: ConsentForm, client: ClientContext, raw: OAuthHttpRequest): Promise<ConsentOutcome> {
    const checked = await this.check(params);
    if (checked.kind !== 'consent') return checked;
    const redirectUri = checked.params.redirect_uri ?? '';
    if (form.decision !== 'approve') {
      return {
        kind: 'redirect',
        location: withQuery(redirectUri, { error: 'access_denied', error_description: 'The user denied access', state: params.state, iss: this.issuer }),
      };
    }
    const again = (problem: AppError): ConsentOutcome => ({ ...checked, problem, email: form.email });
    if (form.mfaToken) {
      const user = await this.secondStep(form, client, again, (problem) => ({ ...checked, problem, mfaToken: form.mfaToken }));
      if ('kind' in user) return user;
      return this.grant(checked, user, raw);
    }
    if (!form.email || !form.password || form.email.length > 254 || form.password.length > 128) {
      return again(invalid(form.email ? 'password' : 'email', 'Enter your e-mail and password.'));
    }
    let user: TokenUser;
    try {
      const found = await this.login.authenticate(form.email.trim().toLowerCase(), form.password, client);
      if (found.user.role === 'ADMIN') return again(new AppError('FORBIDDEN', 'Administrator accounts cannot authorize apps.'));
      assertNotLocked(found.user);
      if (!found.addressVerified) return again(new AppError('EMAIL_NOT_VERIFIED', 'Verify your e-mail address before authorizing apps.'));
      // Every attempt is asked for the code: the consent page has no known-device cookie.
      const mfaToken = await this.secondFactor.challenge(found.user, client, null);
      if (mfaToken) return { ...checked, mfaToken };
      user = found.user;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return again(err);
      throw err;
    }
    return this.grant(checked, user, raw);
  }

  /** The code step of the consent page: the user, or the page again (code page on a wrong code, password page once the token is gone). */
  private async secondStep(
    form: ConsentForm,
    client: ClientContext,
    passwordPage: (problem: AppError) => ConsentOutcome,
    codePage: (problem: AppError) => ConsentOutcome,
  ): Promise<TokenUser | ConsentOutcome> {
    const recoveryCode = form.recoveryCode?.trim();
    const code = form.code?.trim();
    const proof = recoveryCode ? { recoveryCode } : code ? { code } : null;
    if (!proof) return codePage(invalid('code', 'Enter the code from your authenticator app, or a recovery code.'));
    let user: TokenUser;
    try {
      user = await this.secondFactor.confirmAttempt(form.mfaToken ?? '', proof, client);
      if (user.role === 'ADMIN') return passwordPage(new AppError('FORBIDDEN', 'Administrator accounts cannot authorize apps.'));
      assertNotLocked(user);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return err.code === 'INVALID_MFA_CODE' || err.code === 'RATE_LIMITED' ? codePage(err) : passwordPage(err);
    }
    return user;
  }

  /** Lets the library issue the code on a new grant of the signed-in user; the redirect back to the app. */
  private async grant(checked: Extract<ConsentOutcome, { kind: 'consent' }>, user: TokenUser, raw: OAuthHttpRequest): Promise<ConsentOutcome> {
    const grantUser: GrantUser = { id: user.id, grantId: randomUUID(), account: user };
    const request = new OAuth2Server.Request({ method: 'POST', headers: headersOf(raw), query: {}, body: { ...checked.params } });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await this.authorizeServer.authorize(request, response, { authenticateHandler: { handle: () => grantUser } });
    } catch (err) {
      if (!(err instanceof OAuth2Server.OAuthError) || err.code >= 500) this.logger.error({ err }, 'authorization failed');
    }
    const location = response.get('location') as string | undefined;
    if (!location) return { kind: 'error-page', problem: new AppError('INTERNAL_ERROR', 'The authorization could not be completed; try again.') };
    return { kind: 'redirect', location: withQuery(location, { iss: this.issuer }) };
  }

  /** APP-13: the token endpoint (authorization_code with PKCE, refresh_token). */
  async token(raw: OAuthHttpRequest, path: string, requestId: string): Promise<OAuthAnswer> {
    const request = new OAuth2Server.Request({ method: raw.method, headers: headersOf(raw), query: raw.query, body: raw.body });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await this.tokenServer.token(request, response);
      return { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body: response.body as Record<string, unknown> };
    } catch (err) {
      return this.failure(err, path, requestId, response.get('www-authenticate') as string | undefined);
    }
  }

  /** RFC 6749 error body, with the platform's ErrorResponse fields beside it. */
  failure(err: unknown, path: string, requestId: string, wwwAuthenticate?: string): OAuthAnswer {
    const oauth = err instanceof OAuth2Server.OAuthError ? err : null;
    if (!oauth || oauth.code >= 500) this.logger.error({ err }, 'oauth endpoint failed');
    const error = oauth && oauth.code < 500 ? oauth.name : 'server_error';
    const code = CODE_OF[error] ?? 'VALIDATION_FAILED';
    const status = oauth && oauth.code < 500 ? oauth.code : 500;
    const message = oauth && oauth.code < 500 ? oauth.message : 'An unexpected error occurred.';
    return {
      status,
      headers: { 'cache-control': 'no-store', ...(wwwAuthenticate ? { 'www-authenticate': wwwAuthenticate } : {}) },
      body: {
        error,
        error_description: message,
        timestamp: new Date().toISOString(),
        status,
        code,
        message,
        path,
        requestId,
        ...(code === 'VALIDATION_FAILED' ? { errors: [{ field: 'body', message }] } : {}),
      },
    };
  }

  /** Client authentication of RFC 7009 / 7662: Basic or form fields; a public app by its id. */
  private async authenticateClient(raw: OAuthHttpRequest): Promise<StoredApp | null> {
    let clientId = raw.body.client_id;
    let secret = raw.body.client_secret;
    const authorization = raw.headers.authorization;
    if (typeof authorization === 'string' && /^basic /i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return null;
      try {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        secret = decodeURIComponent(decoded.slice(colon + 1));
      } catch {
        return null;
      }
    }
    if (!clientId || clientId.length > 100) return null;
    const app = await this.repo.findByClientId(clientId);
    if (!app) return null;
    if (app.confidential ? !secretMatches(app, secret) : Boolean(secret)) return null;
    return app;
  }

  /** The grant a token (access JWT or refresh token) of this app belongs to, if it is live. */
  private async grantOf(app: StoredApp, token: string) {
    if (token.split('.').length === 3) {
      const claims = await this.verifyJwt(token);
      if (!claims || claims.azp !== app.clientId) return null;
      const grant = await this.repo.findGrant(claims.sid);
      if (!grant || grant.app.clientId !== app.clientId) return null;
      return { grant, kind: 'access_token' as const, claims };
    }
    const row = await this.repo.findRefreshToken(token);
    if (!row || row.grant.app.clientId !== app.clientId) return null;
    return { grant: row.grant, kind: 'refresh_token' as const, refresh: row };
  }

  private async verifyJwt(token: string) {
    try {
      const jwks = createLocalJWKSet(await this.keys.jwks());
      const { payload } = await jwtVerify(token, jwks, { algorithms: ['RS256'], issuer: this.config.JWT_ISSUER });
      const parsed = AccessTokenClaimsSchema.safeParse(payload);
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private unauthorizedClient(path: string, requestId: string): OAuthAnswer {
    return this.failure(new OAuth2Server.InvalidClientError('Invalid client: client authentication failed', { code: 401 }), path, requestId);
  }

  private tokenParam(raw: OAuthHttpRequest, path: string, requestId: string): string | OAuthAnswer {
    const token = raw.body.token;
    if (!token || token.length > 8192) return this.failure(new OAuth2Server.InvalidRequestError('Missing parameter: `token`'), path, requestId);
    return token;
  }

  /** APP-14 (RFC 7009): revoking any token of a grant ends the whole grant. 200 for unknown tokens. */
  async revoke(raw: OAuthHttpRequest, path: string, requestId: string): Promise<OAuthAnswer> {
    const app = await this.authenticateClient(raw);
    if (!app) return this.unauthorizedClient(path, requestId);
    const token = this.tokenParam(raw, path, requestId);
    if (typeof token !== 'string') return token;
    const found = await this.grantOf(app, token);
    if (found && !found.grant.revokedAt) await this.revokeGrant(found.grant.id, 'client-revoked');
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: null };
  }

  /** APP-15 (RFC 7662): only the app's own tokens are ever active for it. */
  async introspect(raw: OAuthHttpRequest, path: string, requestId: string): Promise<OAuthAnswer> {
    const app = await this.authenticateClient(raw);
    if (!app) return this.unauthorizedClient(path, requestId);
    const token = this.tokenParam(raw, path, requestId);
    if (typeof token !== 'string') return token;
    const inactive: OAuthAnswer = { status: 200, headers: { 'cache-control': 'no-store' }, body: { active: false } };
    const found = await this.grantOf(app, token);
    if (!found || found.grant.revokedAt || found.grant.app.suspendedAt) return inactive;
    const base = { active: true, client_id: app.clientId, scope: found.grant.scope.join(' '), sub: String(found.grant.userId) };
    if (found.kind === 'access_token') {
      const { claims } = found;
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: { ...base, token_type: 'Bearer', username: claims.username, exp: claims.exp, iat: claims.iat, jti: claims.jti, iss: claims.iss },
      };
    }
    const { refresh } = found;
    if (refresh.rotatedAt || refresh.expiresAt <= new Date()) return inactive;
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: { ...base, token_type: 'refresh_token', exp: Math.floor(refresh.expiresAt.getTime() / 1000), iat: Math.floor(refresh.createdAt.getTime() / 1000) },
    };
  }

  /** Ends one grant: the database, then the gateway's key (its access tokens stop at once). */
  async revokeGrant(grantId: string, reason: string): Promise<void> {
    const ids = await this.repo.revokeGrants({ id: grantId }, reason, new Date());
    await this.apps.writeRevoked(ids.length ? ids : [grantId]);
  }
}
