import { AppError } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { verifyPassword } from '../accounts/passwords.js';
import type { AppsService } from '../apps/apps.service.js';
import type { MfaService } from '../mfa/mfa.service.js';
import { lockOf } from '../moderation/moderation.service.js';
import type { ClientContext, SessionsService } from '../sessions/sessions.service.js';
import type { LoginService } from '../sessions/login.service.js';
import type { RevocationStore } from '../sessions/redis-store.js';
import type { DeletionRepository, DeletionTarget } from './deletion.repository.js';
import type { DeleteAccountBody } from '@msp/contracts';

/** Object-storage prefix of identity's files of a user (avatar and cover images). */
export const userImagesPrefix = (userId: number) => `images/users/${userId}/`;

/**
 * Account deletion (docs/account-control.md "Deletion"): ACC-3 locks the account and schedules its
 * removal after the grace, ACC-4 restores it inside the grace, ACC-5 (admin) removes it at once.
 * `removeDue` is the grace worker's batch: it removes identity's own data and publishes UserDeleted,
 * on which every other service removes its own.
 */
export class DeletionService {
  constructor(
    private readonly repo: DeletionRepository,
    private readonly deps: {
      sessions: Pick<SessionsService, 'writeRecentRevocations'>;
      revocation: RevocationStore;
      apps: Pick<AppsService, 'writeRevoked'>;
      mfa: Pick<MfaService, 'verifyProof'>;
      login: Pick<LoginService, 'authenticate'>;
      storage: ObjectStorage;
      graceSeconds: number;
      logger: Logger;
      /** Called after a deletion became due at once (ACC-5): wakes the grace worker. */
      wake?: () => void;
    },
  ) {}

  /** ACC-3: the owner proves it is them (password, else a second factor), then the account is locked. */
  async requestDeletion(userId: number, body: DeleteAccountBody, correlationId: string): Promise<{ deleteAt: string }> {
    const user = await this.repo.target(userId);
    if (!user || (user.deleteAt && user.deleteAt <= new Date())) throw new AppError('UNAUTHORIZED', 'The account no longer exists.');
    if (user.role === 'ADMIN') throw new AppError('FORBIDDEN', 'Admin accounts are removed from the configuration, not deleted.');
    await this.prove(user, body);
    const now = new Date();
    const deleteAt = await this.repo.schedule(userId, new Date(now.getTime() + this.deps.graceSeconds * 1000), now, correlationId);
    await this.lock(userId);
    return { deleteAt: deleteAt.toISOString() };
  }

  private async prove(user: DeletionTarget, body: DeleteAccountBody): Promise<void> {
    if (user.passwordHash) {
      if (body.password === undefined)
        throw new AppError('VALIDATION_FAILED', 'Send the account password to delete the account.', { errors: [{ field: 'password', message: 'required' }] });
      if (!(await verifyPassword(user.passwordHash, body.password))) throw new AppError('INVALID_CURRENT_PASSWORD', 'The password is wrong.');
      return;
    }
    // Accounts without a password (identity-provider sign-in): a current code of their authenticator.
    const proof = body.code !== undefined ? { code: body.code } : body.recoveryCode !== undefined ? { recoveryCode: body.recoveryCode } : null;
    if (!proof) {
      throw new AppError('VALIDATION_FAILED', 'This account has no password: send a current two-factor code (code) or a recovery code (recoveryCode).', {
        errors: [{ field: 'code', message: 'required' }],
      });
    }
    try {
      await this.deps.mfa.verifyProof(user.id, proof);
    } catch (err) {
      if (err instanceof AppError && err.code === 'MFA_NOT_ENABLED') {
        throw new AppError('FORBIDDEN', 'This account has neither a password nor two-factor sign-in: set a password first (SEC-4 / AUTH-8).');
      }
      throw err;
    }
  }

  /** The `deleted` lock the gateway enforces (403 ACCOUNT_PENDING_DELETION on every token of the account). */
  private async lock(userId: number): Promise<void> {
    try {
      await this.deps.revocation.setUserLock(userId, { kind: 'deleted' });
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Saved, but not yet enforced; it applies within a minute.', { cause: err, headers: { 'retry-after': '5' } });
    }
  }

  /**
   * ACC-4: the e-mail and password of the account (the same checks and throttle as AUTH-1). Only
   * inside the grace; the sessions ended by ACC-3 stay ended: the owner logs in again.
   */
  async restore(email: string, password: string, client: ClientContext, correlationId: string): Promise<{ message: string }> {
    const { user } = await this.deps.login.authenticate(email, password, client);
    const now = new Date();
    if (!user.deleteAt) throw new AppError('RESOURCE_NOT_FOUND', 'No deletion of this account is pending.');
    if (!(await this.repo.cancel(user.id, now, correlationId))) {
      throw new AppError('RESOURCE_NOT_FOUND', 'The grace period is over: the account is being deleted and cannot be restored.');
    }
    try {
      // Access tokens of the sessions ACC-3 ended must stay dead once the lock is gone.
      await this.deps.sessions.writeRecentRevocations(user.id);
      await this.deps.revocation.setUserLock(user.id, lockOf({ isBanned: user.isBanned, suspendedUntil: user.suspendedUntil, deleteAt: null }, now));
    } catch (err) {
      this.deps.logger.warn({ err, userId: user.id }, 'restored account: lock not yet lifted; the periodic sync leaves it until Redis answers');
      throw new AppError('SERVICE_UNAVAILABLE', 'Restored, but logging in may be refused for a minute.', { cause: err, headers: { 'retry-after': '5' } });
    }
    return { message: 'The account is restored. Log in again.' };
  }

  /** ACC-5: no grace; admin accounts cannot be deleted this way; an unknown or removed account is 404. */
  async adminDelete(userId: number, correlationId: string): Promise<{ deleteAt: string }> {
    const user = await this.repo.target(userId);
    if (!user) throw new AppError('USER_NOT_FOUND', 'No such user.');
    if (user.role === 'ADMIN') throw new AppError('FORBIDDEN', 'Admin accounts cannot be deleted.');
    const now = new Date();
    const deleteAt = await this.repo.schedule(userId, now, now, correlationId);
    await this.lock(userId);
    this.deps.wake?.();
    return { deleteAt: deleteAt.toISOString() };
  }

  /**
   * One run of the grace worker: removes up to `limit` accounts whose grace has passed. Files first
   * (idempotent: a run that fails later lists nothing the next time), then the published events
   * naming the account in batches (`removeInBatches`, idempotent too), then every row with
   * UserDeleted in one transaction. Returns how many were removed and whether more may be due.
   */
  async removeDue(limit = 20): Promise<{ done: number; failed: number; more: boolean }> {
    const due = await this.repo.due(new Date(), limit);
    let done = 0;
    let failed = 0;
    for (const userId of due) {
      try {
        if (await this.removeOne(userId)) done += 1;
      } catch (err) {
        failed += 1;
        this.deps.logger.error({ err, userId }, 'account removal failed; retried at the next run');
      }
    }
    return { done, failed, more: due.length === limit && done > 0 };
  }

  private async removeOne(userId: number): Promise<boolean> {
    const prefixes = [userImagesPrefix(userId), ...(await this.repo.exportIdsOf(userId)).map((id) => `exports/${id}/`)];
    for (const prefix of prefixes) {
      const keys = await this.deps.storage.list(prefix);
      if (keys.length > 0) await this.deps.storage.remove(keys);
    }
    const events = await this.repo.removePublishedEvents(userId, this.deps.logger);
    const removed = await this.repo.remove(userId, new Date(), `account-deletion-${userId}`, events.startedAt);
    if (!removed) return false;
    this.deps.logger.info({ userId }, 'account removed; UserDeleted published');
    try {
      await this.deps.revocation.expireDeletedLock(userId);
      if (removed.foreignGrantIds.length > 0) await this.deps.apps.writeRevoked(removed.foreignGrantIds);
    } catch (err) {
      // The lock key stays without expiry: it still refuses the removed account's tokens.
      this.deps.logger.warn({ err, userId }, 'account removed; its Redis keys are left to expire or to the periodic sync');
    }
    return true;
  }
}
