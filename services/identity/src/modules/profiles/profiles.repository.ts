import { UserTierChanged, UserUpdated, writeOutbox, type EventDefinition } from '@msp/events';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository as accounts, snapshotSelect, type SnapshotRow, type TokenUser } from '../accounts/accounts.repository.js';

type Db = PrismaClient | Prisma.TransactionClient;
/** The columns of a user a profile change may set. */
export type ProfileUpdate = Prisma.UserUpdateInput;

export const profileSelect = {
  id: true,
  email: true,
  emailVerified: true,
  username: true,
  displayName: true,
  role: true,
  tier: true,
  bio: true,
  city: true,
  country: true,
  avatarKey: true,
  coverKey: true,
  favoriteGenres: true,
  instagram: true,
  twitter: true,
  website: true,
  supportLink: true,
  followerCount: true,
  followingCount: true,
  trackCount: true,
  isPrivate: true,
  showHistory: true,
  isBanned: true,
  deleteAt: true,
  passwordHash: true,
  createdAt: true,
  emails: { select: { email: true, isVerified: true }, orderBy: { id: 'asc' } },
} as const satisfies Prisma.UserSelect;
export type ProfileRow = Prisma.UserGetPayload<{ select: typeof profileSelect }>;

export const profilesRepository = {
  byId: (db: Db, id: number) => db.user.findUnique({ where: { id }, select: profileSelect }),
  byUsername: (db: Db, username: string) => db.user.findUnique({ where: { username }, select: profileSelect }),
  update: (db: Db, id: number, data: Prisma.UserUpdateInput) => db.user.update({ where: { id }, data, select: profileSelect }),
};

/** What ProfilesService needs of this repository (unit tests give fakes). */
export type ProfilesStore = Pick<
  ProfilesRepository,
  'byId' | 'byUsername' | 'imageKeys' | 'usernameExists' | 'findTokenUser' | 'updateAndAnnounce' | 'setTier'
>;

/** The user record as the profile operations (USR-1…USR-8, USR-14/15) read and change it. */
export class ProfilesRepository {
  constructor(private readonly prisma: PrismaClient) {}

  byId(id: number): Promise<ProfileRow | null> {
    return profilesRepository.byId(this.prisma, id);
  }

  byUsername(username: string): Promise<ProfileRow | null> {
    return profilesRepository.byUsername(this.prisma, username);
  }

  imageKeys(userId: number): Promise<{ avatarKey: string | null; coverKey: string | null } | null> {
    return this.prisma.user.findUnique({ where: { id: userId }, select: { avatarKey: true, coverKey: true } });
  }

  usernameExists(username: string): Promise<boolean> {
    return accounts.usernameExists(this.prisma, username);
  }

  findTokenUser(userId: number): Promise<TokenUser | null> {
    return accounts.findTokenUser(this.prisma, userId);
  }

  /**
   * Applies `data` and, when `event` derives a UserUpdated payload from the snapshots before and
   * after (null: nothing the fleet copies changed), its outbox row, in one transaction. Null when
   * the user does not exist.
   */
  updateAndAnnounce(
    userId: number,
    data: Prisma.UserUpdateInput,
    event: (before: SnapshotRow, after: SnapshotRow) => EventData<typeof UserUpdated> | null,
    correlationId: string,
  ): Promise<ProfileRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.user.findUnique({ where: { id: userId }, select: snapshotSelect });
      if (!before) return null;
      const row = await profilesRepository.update(tx, userId, data);
      const after = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: snapshotSelect });
      const payload = event(before, after);
      if (payload) await writeOutbox(tx, UserUpdated, payload, { correlationId });
      return row;
    });
  }

  /** USR-5: the tier, and identity.user.tier-changed.v1 when it changed, in one transaction. */
  async setTier(userId: number, tier: 'FREE' | 'PRO', correlationId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const changed = await tx.user.updateMany({ where: { id: userId, tier: { not: tier } }, data: { tier } });
      if (changed.count > 0) await writeOutbox(tx, UserTierChanged, { userId, tier }, { correlationId });
    });
  }
}

type EventData<D> = D extends EventDefinition<infer T> ? T : never;
