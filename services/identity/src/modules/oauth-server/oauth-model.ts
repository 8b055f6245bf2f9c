import { randomUUID } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { APP_SCOPES, DEFAULT_APP_SCOPE, type AppScope } from '@msp/contracts';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { AppsRepository, StoredApp } from '../apps/apps.repository.js';
import { secretMatches } from '../apps/apps.service.js';
import type { SigningKeyService } from '../keys/keys.service.js';
import { assertNotLocked } from '../sessions/sessions.service.js';
import { randomSecret } from '../sessions/secrets.js';

/** The library's `user`: the account and the grant its tokens belong to (the tokens' `sid`). */
export interface GrantUser {
  id: number;
  grantId: string;
  account: TokenUser;
}

/** The library's `client`. */
export interface GrantClient extends OAuth2Server.Client {
  id: string;
  app: StoredApp;
}

export interface ModelDeps {
  repo: AppsRepository;
  keys: Pick<SigningKeyService, 'sign'>;
  findTokenUser(userId: number): Promise<TokenUser | null>;
  /** Ends a grant: database, then the gateway's revoked key (replays, reuse). */
  revokeGrant(grantId: string, reason: string): Promise<void>;
  accessTtlSeconds: number;
  jwtIssuer: string;
}

/**
 * Scopes of a request: none named → `read`; any unknown → invalid (null); `read` is always part
 * of a grant. In the order of APP_SCOPES.
 */
export function normaliseScopes(requested: readonly string[] | undefined | null): AppScope[] | null {
  const asked = new Set(requested ?? []);
  for (const scope of asked) if (!(APP_SCOPES as readonly string[]).includes(scope)) return null;
  asked.add(DEFAULT_APP_SCOPE);
  return APP_SCOPES.filter((s) => asked.has(s));
}

export function clientOf(app: StoredApp): GrantClient {
  return { id: app.clientId, redirectUris: app.redirectUris, grants: ['authorization_code', 'refresh_token'], app };
}

function usable(user: TokenUser | null): user is TokenUser {
  if (!user) return false;
  try {
    assertNotLocked(user);
    return true;
  } catch {
    return false;
  }
}

/**
 * The storage model of @node-oauth/oauth2-server, which runs the grants themselves (code
 * exchange with PKCE verification, redirect-URI match, client authentication, refresh rotation).
 * What the model adds: apps from the registry (a suspended one is no client), JWT access tokens
 * signed with identity's keys (verified by the gateway like session tokens, with `azp` and
 * `scope`), a replayed code or a reused refresh token ending the whole grant.
 */
export function createModel(deps: ModelDeps, options: { authenticateClients: boolean }) {
  const { repo } = deps;
  const now = () => new Date();

  const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
    async getClient(clientId, clientSecret) {
      const app = await repo.findByClientId(clientId);
      if (!app || app.suspendedAt) return null;
      if (options.authenticateClients) {
        // Confidential apps must authenticate; public apps have nothing to present (PKCE instead).
        if (app.confidential ? !secretMatches(app, clientSecret) : Boolean(clientSecret)) return null;
      }
      return clientOf(app);
    },

    async validateScope(_user, _client, scope) {
      return normaliseScopes(scope) ?? false;
    },

    async validateRedirectUri(redirectUri, client) {
      return (client as GrantClient).app.redirectUris.includes(redirectUri);
    },

    async generateAuthorizationCode() {
      return randomSecret();
    },

    async generateRefreshToken() {
      return randomSecret();
    },

    async generateAccessToken(client, user, scope) {
      const { account, grantId } = user as GrantUser;
      return deps.keys.sign(
        {
          sub: String(account.id),
          username: account.username,
          // An app never acts with administrator rights, whoever authorized it.
          role: account.role === 'ADMIN' ? 'LISTENER' : account.role,
          tier: account.tier,
          sid: grantId,
          jti: randomUUID(),
          azp: client.id,
          scope: (scope ?? [DEFAULT_APP_SCOPE]).join(' '),
        },
        deps.accessTtlSeconds,
        deps.jwtIssuer,
      );
    },

    async saveAuthorizationCode(code, client, user) {
      const { id, grantId } = user as GrantUser;
      if (!code.codeChallenge || code.codeChallengeMethod !== 'S256') return false;
      await repo.createGrantWithCode(
        { id: grantId, appId: (client as GrantClient).app.id, userId: id, scope: code.scope ?? [DEFAULT_APP_SCOPE] },
        {
          code: code.authorizationCode,
          redirectUri: code.redirectUri,
          codeChallenge: code.codeChallenge,
          codeChallengeMethod: code.codeChallengeMethod,
          expiresAt: code.expiresAt,
        },
      );
      return { ...code, client, user };
    },

    async getAuthorizationCode(authorizationCode) {
      const row = await repo.findCode(authorizationCode);
      if (!row) return null;
      if (row.usedAt) {
        // A code presented twice: whoever holds it is not to be trusted with what it gave.
        await deps.revokeGrant(row.grantId, 'code-replay');
        return null;
      }
      if (row.grant.revokedAt || row.grant.app.suspendedAt) return null;
      const account = await deps.findTokenUser(row.grant.userId);
      if (!usable(account)) return null;
      return {
        authorizationCode,
        expiresAt: row.expiresAt,
        redirectUri: row.redirectUri,
        scope: row.grant.scope,
        client: { id: row.grant.app.clientId, grants: [] },
        user: { id: account.id, grantId: row.grantId, account } satisfies GrantUser,
        codeChallenge: row.codeChallenge,
        codeChallengeMethod: row.codeChallengeMethod,
      };
    },

    async revokeAuthorizationCode(code) {
      if (await repo.useCode(code.authorizationCode, now())) return true;
      await deps.revokeGrant((code.user as GrantUser).grantId, 'code-replay');
      return false;
    },

    async saveToken(token, client, user) {
      const { grantId } = user as GrantUser;
      if (token.refreshToken && token.refreshTokenExpiresAt) {
        const stored = await repo.addRefreshToken(grantId, token.refreshToken, token.refreshTokenExpiresAt);
        if (!stored) return false;
      }
      return { ...token, client, user };
    },

    async getRefreshToken(refreshToken) {
      const row = await repo.findRefreshToken(refreshToken);
      if (!row) return null;
      if (row.rotatedAt) {
        // A rotated token presented again: the family is compromised, end it.
        await deps.revokeGrant(row.grantId, 'refresh-token-reuse');
        return null;
      }
      if (row.grant.revokedAt || row.grant.app.suspendedAt) return null;
      const account = await deps.findTokenUser(row.grant.userId);
      if (!usable(account)) return null;
      return {
        refreshToken,
        refreshTokenExpiresAt: row.expiresAt,
        scope: row.grant.scope,
        client: { id: row.grant.app.clientId, grants: [] },
        user: { id: account.id, grantId: row.grantId, account } satisfies GrantUser,
      };
    },

    async revokeToken(token) {
      if (await repo.rotateRefreshToken(token.refreshToken, now())) return true;
      await deps.revokeGrant((token.user as GrantUser).grantId, 'refresh-token-reuse');
      return false;
    },

    // Access tokens are verified by the gateway, not by this library.
    async getAccessToken() {
      return null;
    },
  };
  return model;
}
