import { toPage } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { ModerationStore } from './moderation.repository.js';
import type { AdminAccountConfig } from '../../config.js';
import type { Links } from '../../links.js';
import { hashPassword } from '../accounts/passwords.js';
import type { RevocationStore, UserLock } from '../sessions/redis-store.js';
import type { SessionsService } from '../sessions/sessions.service.js';

const DAY_MS = 86_400_000;

export function lockOf(user: { isBanned: boolean; suspendedUntil: Date | null; deleteAt?: Date | null }, now = new Date()): UserLock | null {
  if (user.isBanned) return { kind: 'banned' };
  // Pending deletion (ACC-3): the account stays locked until ACC-4 or its removal.
  if (user.deleteAt) return { kind: 'deleted' };
  if (user.suspendedUntil && user.suspendedUntil > now) return { kind: 'suspended', until: user.suspendedUntil };
  return null;
}

/** MOD-8…MOD-10 (R14), admin accounts from configuration (R13), and the Redis lock re-sync. */
export class ModerationService {
  constructor(
    private readonly repo: ModerationStore,
    private readonly sessions: Pick<SessionsService, 'revokeAllForLock' | 'writeRecentRevocations'>,
    private readonly revocation: Pick<RevocationStore, 'setUserLock' | 'syncLocks'>,
    private readonly links: Links,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /**
   * Creates or updates the configured admin accounts (verified, role ADMIN). A configured
   * address that belongs to a regular account is left alone and logged: configuration never
   * silently turns a user into an admin.
   */
  async ensureAdmins(admins: AdminAccountConfig[]): Promise<void> {
    for (const admin of admins) {
      const email = admin.email.toLowerCase();
      const passwordHash = admin.passwordHash ?? (await hashPassword(admin.password ?? ''));
      const existing = await this.repo.roleByEmail(email);
      if (existing && existing.role !== 'ADMIN') {
        this.logger.error({ email }, 'ADMIN_ACCOUNTS names an address of a regular account; skipped');
        continue;
      }
      if (existing) {
        await this.repo.updateAdmin(existing.id, passwordHash, admin.displayName ?? admin.username);
        continue;
      }
      await this.repo.createAdmin({ email, username: admin.username.toLowerCase(), displayName: admin.displayName ?? admin.username, passwordHash });
    }
  }

  private async target(userId: number) {
    const user = await this.repo.target(userId);
    if (!user) throw new AppError('USER_NOT_FOUND', 'No such user.');
    if (user.role === 'ADMIN') throw new AppError('FORBIDDEN', 'Admin accounts cannot be banned or suspended.');
    return user;
  }

  /**
   * Sessions end in the database first (they stay revoked even if Redis fails below); then the
   * lock the gateway enforces. Lifting a lock first re-writes the revoked-session keys of recent
   * sessions, so their access tokens do not come back to life.
   */
  private async applyLock(userId: number, lock: UserLock | null, revokeReason: string | null): Promise<void> {
    if (revokeReason) await this.sessions.revokeAllForLock(userId, revokeReason);
    try {
      if (!lock) await this.sessions.writeRecentRevocations(userId);
      await this.revocation.setUserLock(userId, lock);
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Saved, but not yet enforced; it applies within a minute.', { cause: err, headers: { 'retry-after': '5' } });
    }
  }

  /** MOD-8: a ban revokes every session at once; lifting it restores the account, not the sessions. */
  async setBan(userId: number, isBanned: boolean, reason: string | null, correlationId: string) {
    const user = await this.target(userId);
    const now = new Date();
    // The event only when the flag changes: a repeated ban is not news for the fleet.
    await this.repo.setBan(userId, { isBanned, reason, at: now }, isBanned !== user.isBanned, correlationId);
    await this.applyLock(userId, lockOf({ isBanned, suspendedUntil: user.suspendedUntil, deleteAt: user.deleteAt }, now), isBanned ? 'banned' : null);
    return { message: isBanned ? 'The user is banned.' : 'The ban is lifted.' };
  }

  /** MOD-9: durationDays 0 lifts the suspension. */
  async suspend(userId: number, durationDays: number, reason: string | null, correlationId: string) {
    const user = await this.target(userId);
    const now = new Date();
    const until = durationDays === 0 ? null : new Date(now.getTime() + durationDays * DAY_MS);
    await this.repo.setSuspension(userId, until, reason, now, correlationId);
    await this.applyLock(userId, lockOf({ isBanned: user.isBanned, suspendedUntil: until, deleteAt: user.deleteAt }, now), until ? 'suspended' : null);
    return {
      message: until ? `The user is suspended until ${until.toISOString()}.` : 'The suspension is lifted.',
      suspendedUntil: until?.toISOString() ?? null,
    };
  }

  /** MOD-10: banned or currently suspended users, latest moderation first. */
  async banned(page: number, size: number) {
    const { rows, total } = await this.repo.lockedPage(new Date(), page, size);
    const now = new Date();
    const items = rows.map((r) => ({
      id: r.id,
      username: r.username,
      displayName: r.displayName || r.username,
      avatarUrl: this.links.mediaUrl(r.avatarKey),
      tier: r.tier,
      isFollowing: false,
      followerCount: r.followerCount,
      trackCount: r.trackCount,
      isBanned: r.isBanned,
      banReason: r.banReason,
      bannedAt: r.bannedAt?.toISOString() ?? null,
      suspendedUntil: r.suspendedUntil && r.suspendedUntil > now ? r.suspendedUntil.toISOString() : null,
    }));
    return toPage(items, total, page, size);
  }

  /**
   * Re-writes the Redis state the gateway enforces from the database (the source of truth):
   * after a Redis restart (it keeps nothing on disk) bans, suspensions and recently revoked
   * sessions are enforced again within one period.
   */
  async syncRevocations(accessTtlSeconds: number): Promise<void> {
    const now = new Date();
    const locked = await this.repo.lockedUsers(now);
    const lockedIds = new Set(locked.map((u) => u.id));
    const revoked = (await this.repo.sessionsRevokedSince(new Date(now.getTime() - (accessTtlSeconds + 60) * 1000))).filter((s) => !lockedIds.has(s.userId)); // a locked account's tokens get the lock's 403, not 401
    const entries = locked.flatMap((u) => {
      const lock = lockOf(u, now);
      return lock ? [{ userId: u.id, lock }] : [];
    });
    await this.revocation.syncLocks(
      entries,
      revoked.map((s) => s.id),
    );
  }
}

/** Runs `syncRevocations` at start and then every `periodMs`. */
export function startRevocationSync(moderation: ModerationService, accessTtlSeconds: number, periodMs: number, logger: Logger) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = () => {
    running = moderation
      .syncRevocations(accessTtlSeconds)
      .catch((err) => logger.warn({ err }, 'revocation sync failed'))
      .finally(() => {
        running = null;
      });
  };
  tick();
  timer = setInterval(tick, periodMs);
  timer.unref();
  return {
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
