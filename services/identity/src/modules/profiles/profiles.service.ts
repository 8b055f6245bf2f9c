import type { SocialLinksBody, UpdateProfileBody } from '@msp/contracts';
import { AppError, isUniqueViolation } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { Links } from '../../links.js';
import { snapshotOf } from '../accounts/accounts.events.js';
import type { SnapshotRow } from '../accounts/accounts.repository.js';
import { usernameProblem } from '../accounts/username.js';
import type { ClientContext, IssuedTokens, SessionsService } from '../sessions/sessions.service.js';
import type { PeersClient } from './peers.client.js';
import { privacyOf, socialLinksOf, toMeProfile, toPublicProfile } from './profiles.mapper.js';
import type { ProfileRow, ProfilesStore, ProfileUpdate } from './profiles.repository.js';

/** Subscription states that make an account PRO (R12, R17). */
const PAID = new Set(['active', 'trialing', 'past_due']);

function sameSnapshot(a: SnapshotRow, b: SnapshotRow): boolean {
  return (
    a.username === b.username &&
    a.displayName === b.displayName &&
    a.avatarKey === b.avatarKey &&
    a.role === b.role &&
    a.isPrivate === b.isPrivate &&
    a.showHistory === b.showHistory
  );
}

export class ProfilesService {
  constructor(
    private readonly repo: ProfilesStore,
    private readonly links: Links,
    private readonly peers: Pick<PeersClient, 'relationships' | 'subscriptionStatus'>,
    private readonly sessions: Pick<SessionsService, 'reissue'>,
  ) {}

  /**
   * Applies a change to the user and, when a snapshot field changed, its UserUpdated event, in
   * one transaction.
   */
  async updateUser(userId: number, data: ProfileUpdate, correlationId: string): Promise<ProfileRow> {
    const row = await this.repo.updateAndAnnounce(
      userId,
      data,
      (before, after) => (sameSnapshot(before, after) ? null : snapshotOf(after, this.links)),
      correlationId,
    );
    if (!row) throw new AppError('UNAUTHORIZED');
    return row;
  }

  private async own(userId: number): Promise<ProfileRow> {
    const row = await this.repo.byId(userId);
    if (!row) throw new AppError('UNAUTHORIZED', 'The account no longer exists.');
    return row;
  }

  async imageKeys(userId: number) {
    const row = await this.repo.imageKeys(userId);
    if (!row) throw new AppError('UNAUTHORIZED', 'The account no longer exists.');
    return row;
  }

  /** USR-1 */
  async me(userId: number) {
    return toMeProfile(await this.own(userId), this.links);
  }

  /** USR-2 */
  async update(userId: number, body: UpdateProfileBody, correlationId: string) {
    const data: ProfileUpdate = {};
    if (body.displayName !== undefined) data.displayName = body.displayName;
    if (body.bio !== undefined) data.bio = body.bio;
    if (body.city !== undefined) data.city = body.city;
    if (body.country !== undefined) data.country = body.country;
    if (body.favoriteGenres !== undefined) data.favoriteGenres = body.favoriteGenres ? [...new Set(body.favoriteGenres)] : [];
    if (body.socialLinks === null) Object.assign(data, { instagram: null, twitter: null, website: null, supportLink: null });
    else if (body.socialLinks) Object.assign(data, definedOnly(body.socialLinks));
    return toMeProfile(await this.updateUser(userId, data, correlationId), this.links);
  }

  /** USR-3 */
  async privacy(userId: number) {
    return privacyOf(await this.own(userId));
  }

  /** USR-4 */
  async updatePrivacy(userId: number, body: { isPrivate?: boolean; showHistory?: boolean }, correlationId: string) {
    return privacyOf(await this.updateUser(userId, definedOnly(body), correlationId));
  }

  /** USR-6: LISTENER ↔ ARTIST; admin accounts keep their role. */
  async updateRole(userId: number, role: 'LISTENER' | 'ARTIST', correlationId: string) {
    const current = await this.own(userId);
    if (current.role === 'ADMIN') throw new AppError('FORBIDDEN', 'Admin accounts keep their role.');
    return toMeProfile(await this.updateUser(userId, { role }, correlationId), this.links);
  }

  /** USR-7 (R1): old links stop resolving at once. */
  async updatePermalink(userId: number, permalink: string, correlationId: string) {
    const problem = usernameProblem(permalink);
    if (problem) throw AppError.validation([{ field: 'permalink', message: problem }]);
    const current = await this.own(userId);
    if (current.username === permalink) return toMeProfile(current, this.links);
    if (await this.repo.usernameExists(permalink)) throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
    try {
      return toMeProfile(await this.updateUser(userId, { username: permalink }, correlationId), this.links);
    } catch (err) {
      if (isUniqueViolation(err, 'username')) throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
      throw err;
    }
  }

  /** USR-8 */
  async updateSocialLinks(userId: number, body: SocialLinksBody, correlationId: string) {
    return socialLinksOf(await this.updateUser(userId, definedOnly(body), correlationId));
  }

  /**
   * USR-5 (R12): PRO needs a subscription that is active, trialing or past_due (402 otherwise);
   * FREE needs none (409 otherwise). New tokens carry the new tier.
   */
  async updateTier(
    caller: Caller,
    newTier: 'FREE' | 'PRO',
    client: ClientContext,
    correlationId: string,
  ): Promise<{ tier: 'FREE' | 'PRO'; issued: IssuedTokens }> {
    await this.own(caller.userId);
    const status = await this.peers.subscriptionStatus(caller.userId);
    if (newTier === 'PRO' && !PAID.has(status)) throw new AppError('PAYMENT_REQUIRED', 'PRO needs an active subscription.');
    if (newTier === 'FREE' && PAID.has(status)) {
      throw new AppError('SUBSCRIPTION_STATE_CONFLICT', 'Cancel your subscription to go back to FREE.');
    }
    await this.repo.setTier(caller.userId, newTier, correlationId);
    const user = await this.repo.findTokenUser(caller.userId);
    if (!user) throw new AppError('UNAUTHORIZED');
    return { tier: newTier, issued: await this.sessions.reissue(user, caller.sessionId, client) };
  }

  /**
   * USR-14 / USR-15. Banned users and users who blocked the caller (R7) answer 404 (admins see
   * every profile); caller-relative flags come from social in one call and degrade to false.
   */
  async publicProfile(ref: { id?: number; username?: string }, caller: Caller | null) {
    // A name outside the username alphabet (R1) cannot exist: no query for it.
    const lookup = ref.id !== undefined || /^[a-z0-9._-]{1,100}$/.test(ref.username ?? '');
    const row = !lookup ? null : ref.id !== undefined ? await this.repo.byId(ref.id) : await this.repo.byUsername(ref.username ?? '');
    const isAdmin = caller?.role === 'ADMIN';
    // An account pending deletion (ACC-3) is hidden like a banned one.
    if (!row || ((row.isBanned || row.deleteAt) && !isAdmin)) throw new AppError('USER_NOT_FOUND', 'No such user.');
    let flags = { isFollowing: false, isFollowed: false, isBlocked: false };
    if (caller && caller.userId !== row.id) {
      const relation = (await this.peers.relationships(caller.userId, [row.id]))?.get(row.id);
      if (relation?.hasBlockedViewer && !isAdmin) throw new AppError('USER_NOT_FOUND', 'No such user.');
      if (relation) flags = { isFollowing: relation.isFollowing, isFollowed: relation.isFollowed, isBlocked: relation.isBlocked };
    }
    return toPublicProfile(row, flags, this.links);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
