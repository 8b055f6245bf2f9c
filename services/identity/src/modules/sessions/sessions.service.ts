import { randomUUID } from 'node:crypto';
import type { DeviceInfo, LoginResponse } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { Links } from '../../links.js';
import type { SigningKeyService } from '../keys/keys.service.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { RevocationStore } from './redis-store.js';
import { randomSecret } from './secrets.js';
import type { SessionSelector, SessionsStore } from './sessions.repository.js';

export interface ClientContext {
  ip: string;
  userAgent: string;
  deviceInfo?: DeviceInfo | null;
  /** The known-device cookie the client sent, if any (KnownDevices). */
  knownDevice?: string | null;
}

export interface IssuedTokens {
  response: LoginResponse;
  /** Set for refreshable sessions: goes into the cookie (and the body when asked for). */
  refreshToken: string | null;
  sessionId: string;
}

/**
 * 403 for a banned or currently suspended account (R14), or one pending deletion (ACC-3): login,
 * refresh and token exchange refuse it.
 */
export function assertNotLocked(user: Pick<TokenUser, 'isBanned' | 'suspendedUntil'> & { deleteAt?: Date | null }, now = new Date()): void {
  if (user.isBanned) throw new AppError('ACCOUNT_BANNED', 'This account is banned.');
  if (user.deleteAt) {
    throw new AppError(
      'ACCOUNT_PENDING_DELETION',
      `This account is deleted on ${user.deleteAt.toISOString()}; restore it with POST /api/users/me/restore before then.`,
    );
  }
  if (user.suspendedUntil && user.suspendedUntil > now) {
    throw new AppError('ACCOUNT_SUSPENDED', `This account is suspended until ${user.suspendedUntil.toISOString()}.`);
  }
}

function deviceOf(client: ClientContext) {
  const ua = (client.userAgent || 'unknown').slice(0, 200);
  return client.deviceInfo
    ? { deviceType: client.deviceInfo.deviceType, fingerPrint: client.deviceInfo.fingerPrint, deviceName: client.deviceInfo.deviceName }
    : { deviceType: 'WEB', fingerPrint: ua, deviceName: ua };
}

/**
 * Sessions and tokens (docs/api.md "Conventions", R13). A session is one login on one device; its id is the `sid` of
 * every access token issued for it and names its refresh-token family. Refresh tokens are opaque,
 * stored hashed, rotated by every use; presenting a rotated one revokes the whole session.
 * Revoking writes the gateway's revoked-session key, so the session's access tokens stop at once.
 */
export class SessionsService {
  constructor(
    private readonly repo: SessionsStore,
    private readonly keys: Pick<SigningKeyService, 'sign'>,
    private readonly revocation: Pick<RevocationStore, 'revokeSessions'>,
    private readonly config: IdentityConfig,
    private readonly links: Links,
  ) {}

  get accessTtl(): number {
    return this.config.ACCESS_TOKEN_TTL_SECONDS;
  }

  get refreshTtl(): number {
    return this.config.REFRESH_TOKEN_TTL_SECONDS;
  }

  signAccessToken(user: Pick<TokenUser, 'id' | 'username' | 'role' | 'tier'>, sessionId: string): Promise<string> {
    return this.keys.sign(
      { sub: String(user.id), username: user.username, role: user.role, tier: user.tier, sid: sessionId, jti: randomUUID() },
      this.accessTtl,
      this.config.JWT_ISSUER,
    );
  }

  loginResponse(user: TokenUser, accessToken: string, isNewUser: boolean): LoginResponse {
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: this.accessTtl,
      user: {
        id: user.id,
        username: user.username,
        displayName: user.displayName,
        tier: user.tier,
        role: user.role,
        profileUrl: this.links.profileUrl(user.username),
        avatarUrl: this.links.mediaUrl(user.avatarKey),
        isNewUser,
      },
    };
  }

  /** Opens a session (one device) and issues its first tokens. */
  async start(user: TokenUser, client: ClientContext, options: { refreshable: boolean; isNewUser?: boolean }): Promise<IssuedTokens> {
    const sessionId = randomUUID();
    const refreshToken = options.refreshable ? randomSecret() : null;
    const now = new Date();
    await this.repo.create(
      { id: sessionId, userId: user.id, ...deviceOf(client), ipAddress: client.ip.slice(0, 100), refreshable: options.refreshable },
      refreshToken ? { token: refreshToken, expiresAt: new Date(now.getTime() + this.refreshTtl * 1000) } : null,
    );
    const accessToken = await this.signAccessToken(user, sessionId);
    return { response: this.loginResponse(user, accessToken, options.isNewUser ?? false), refreshToken, sessionId };
  }

  /** AUTH-2. */
  async refresh(token: string | null): Promise<IssuedTokens> {
    if (!token) throw new AppError('INVALID_REFRESH_TOKEN', 'A refresh token is required.');
    const row = await this.repo.findRefreshToken(token);
    if (!row) throw new AppError('INVALID_REFRESH_TOKEN', 'The refresh token is not valid.');
    if (row.rotatedAt) return this.reused(row.sessionId);
    if (row.session.revokedAt || row.expiresAt <= new Date()) throw new AppError('INVALID_REFRESH_TOKEN', 'The refresh token is not valid.');
    const user = await this.repo.findTokenUser(row.session.userId);
    if (!user) throw new AppError('INVALID_REFRESH_TOKEN', 'The refresh token is not valid.');
    assertNotLocked(user);

    const next = randomSecret();
    const now = new Date();
    // Conditional update: of two concurrent uses of one token only one can win; the other is a reuse.
    const rotated = await this.repo.rotate(row, { token: next, expiresAt: new Date(now.getTime() + this.refreshTtl * 1000) }, now);
    if (!rotated) return this.reused(row.sessionId);
    const accessToken = await this.signAccessToken(user, row.sessionId);
    return { response: this.loginResponse(user, accessToken, false), refreshToken: next, sessionId: row.sessionId };
  }

  private async reused(sessionId: string): Promise<never> {
    await this.revokeSessions({ id: sessionId }, 'refresh-token-reuse');
    throw new AppError('REFRESH_TOKEN_REUSED', 'This refresh token was already used; the session has been revoked.');
  }

  /**
   * USR-5: new tokens for the caller's session carrying the new tier. The current refresh token of
   * the session is rotated (presenting it again is a reuse).
   */
  async reissue(user: TokenUser, sessionId: string | null, client: ClientContext): Promise<IssuedTokens> {
    const session = sessionId ? await this.repo.findSession(sessionId) : null;
    if (!session || session.userId !== user.id || session.revokedAt || !session.refreshable) {
      return this.start(user, client, { refreshable: user.role !== 'ADMIN' });
    }
    const next = randomSecret();
    const now = new Date();
    await this.repo.replaceFamily(session.id, { token: next, expiresAt: new Date(now.getTime() + this.refreshTtl * 1000) }, now);
    const accessToken = await this.signAccessToken(user, session.id);
    return { response: this.loginResponse(user, accessToken, false), refreshToken: next, sessionId: session.id };
  }

  /** AUTH-3: the session of the refresh token, else the caller's own session. Idempotent. */
  async logout(token: string | null, callerSessionId: string | null): Promise<void> {
    let sessionId: string | null = null;
    if (token) {
      sessionId = await this.repo.sessionOfRefreshToken(token);
    }
    sessionId ??= callerSessionId;
    if (sessionId) await this.revokeSessions({ id: sessionId }, 'logout');
  }

  /** AUTH-4, SEC-4 (except the caller's), AUTH-9. */
  async revokeAllOf(userId: number, reason: string, exceptSessionId?: string | null): Promise<void> {
    await this.revokeSessions({ userId, exceptId: exceptSessionId }, reason);
  }

  /**
   * Ban and suspension: the sessions end in the database (no refresh, no return after the lock is
   * lifted), but no revoked-session keys are written while the account lock is in force, so the
   * gateway answers the lock's own 403 (ACCOUNT_BANNED / ACCOUNT_SUSPENDED) rather than 401.
   */
  async revokeAllForLock(userId: number, reason: string): Promise<void> {
    await this.repo.revokeAllOfUser(userId, reason, new Date());
  }

  /** When a lock is lifted: access tokens of sessions revoked recently must stay dead. */
  async writeRecentRevocations(userId: number): Promise<void> {
    const recent = await this.repo.revokedSince(userId, new Date(Date.now() - (this.accessTtl + 60) * 1000));
    await this.revocation.revokeSessions(recent);
  }

  /**
   * Marks the sessions revoked in the database (the source of truth, re-synced to Redis
   * periodically) and writes the revoked-session keys the gateway checks on every request.
   */
  private async revokeSessions(selector: SessionSelector, reason: string): Promise<void> {
    const ids = await this.repo.revoke(selector, reason, new Date());
    // Sessions revoked earlier get their key re-written too (cheap, and heals a lost key).
    const extra = 'id' in selector && !ids.includes(selector.id) ? [selector.id] : [];
    try {
      await this.revocation.revokeSessions([...ids, ...extra]);
    } catch (err) {
      // The database already says revoked; the periodic sync writes the keys when Redis is back.
      throw new AppError('SERVICE_UNAVAILABLE', 'Sessions could not be revoked right now; try again.', { cause: err, headers: { 'retry-after': '5' } });
    }
  }
}
