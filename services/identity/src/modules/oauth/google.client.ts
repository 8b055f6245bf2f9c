import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';

export interface GoogleIdentity {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

function rejected(message = 'The identity-provider token was rejected.'): AppError {
  return new AppError('INVALID_IDP_TOKEN', message);
}

function providerDown(cause: unknown): AppError {
  return new AppError('PROVIDER_ERROR', 'The identity provider could not be reached.', { cause });
}

/**
 * Google as an OpenID Connect provider: ID tokens are verified against its JWKS (signature,
 * issuer, audience = our client id, expiry); authorization codes are exchanged at its token
 * endpoint. Every endpoint is configuration so tests run against local stand-ins.
 */
export class GoogleClient {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly config: IdentityConfig) {
    this.jwks = createRemoteJWKSet(new URL(config.GOOGLE_JWKS_URL), { timeoutDuration: 3000, cooldownDuration: 30_000 });
  }

  get configured(): boolean {
    return Boolean(this.config.GOOGLE_CLIENT_ID);
  }

  async verifyIdToken(idToken: string, expectedNonce?: string): Promise<GoogleIdentity> {
    const clientId = this.config.GOOGLE_CLIENT_ID;
    if (!clientId) throw rejected('Identity-provider login is not configured.');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(idToken, this.jwks, {
        issuer: this.config.GOOGLE_ISSUERS,
        audience: clientId,
        algorithms: ['RS256'],
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout || (err instanceof TypeError && /fetch/i.test(err.message))) throw providerDown(err);
      throw rejected();
    }
    if (expectedNonce !== undefined && payload.nonce !== expectedNonce) throw rejected();
    const email = typeof payload.email === 'string' ? payload.email.trim().toLowerCase() : null;
    const verified = payload.email_verified === true || payload.email_verified === 'true';
    return {
      sub: String(payload.sub),
      email: email && email.length <= 254 ? email : null,
      emailVerified: verified,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  }

  /** Exchanges an authorization code for its ID token. */
  async exchangeCode(code: string, redirectUri: string, codeVerifier?: string): Promise<string> {
    const clientId = this.config.GOOGLE_CLIENT_ID;
    if (!clientId) throw rejected('Identity-provider login is not configured.');
    const form = new URLSearchParams({ code, client_id: clientId, redirect_uri: redirectUri, grant_type: 'authorization_code' });
    if (this.config.GOOGLE_CLIENT_SECRET) form.set('client_secret', this.config.GOOGLE_CLIENT_SECRET);
    if (codeVerifier) form.set('code_verifier', codeVerifier);
    let res: Response;
    try {
      res = await fetch(this.config.GOOGLE_TOKEN_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(5000),
      });
    } catch (err) {
      throw providerDown(err);
    }
    if (res.status >= 500) throw providerDown(new Error(`token endpoint answered ${res.status}`));
    // A body that is not JSON is treated like one without an id_token: rejected just below.
    const body = (await res.json().catch(() => null)) as { id_token?: unknown } | null;
    if (!res.ok || typeof body?.id_token !== 'string') throw rejected('The authorization code was rejected.');
    return body.id_token;
  }
}
