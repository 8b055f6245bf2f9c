import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

type Db = PrismaClient | Prisma.TransactionClient;
/** The transaction handle a service passes back to the repository's methods. */
export type Tx = Prisma.TransactionClient;

/** What tokens, login answers and lock checks need of a user. */
export const tokenUserSelect = {
  id: true,
  email: true,
  username: true,
  displayName: true,
  role: true,
  tier: true,
  avatarKey: true,
  passwordHash: true,
  emailVerified: true,
  isBanned: true,
  suspendedUntil: true,
  deleteAt: true,
} as const;
export type TokenUser = Prisma.UserGetPayload<{ select: typeof tokenUserSelect }>;

/** The fields of the snapshot other services copy (identity.user.* events). */
export const snapshotSelect = {
  id: true,
  username: true,
  displayName: true,
  avatarKey: true,
  tier: true,
  role: true,
  isPrivate: true,
  showHistory: true,
  createdAt: true,
} as const;
export type SnapshotRow = Prisma.UserGetPayload<{ select: typeof snapshotSelect }>;

export const accountsRepository = {
  /** Any account that holds the address (primary or secondary): one lookup on the unique index. */
  emailExists: async (db: Db, email: string) => (await db.userEmail.count({ where: { email } })) > 0,

  usernameExists: async (db: Db, username: string) => (await db.user.count({ where: { username } })) > 0,

  /** Serialises username derivations of one base until the transaction ends (R1 suffixes). */
  lockUsernameBase: async (tx: Prisma.TransactionClient, base: string) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`username:${base}`}))`;
  },

  /** Usernames that start with `base`, to find a free numeric suffix in one query. */
  usernamesLike: async (db: Db, base: string) =>
    (await db.user.findMany({ where: { username: { startsWith: base } }, select: { username: true } })).map((u) => u.username),

  /** Creates the account with its primary address. */
  create: (db: Db, data: Omit<Prisma.UserCreateInput, 'emails'>, emailVerified: boolean) =>
    db.user.create({
      data: {
        ...data,
        emailVerified,
        emails: { create: { email: data.email, isVerified: emailVerified, verifiedAt: emailVerified ? new Date() : null } },
      },
      select: { ...snapshotSelect, email: true },
    }),

  /** The account holding `email` and whether that address is verified. */
  findByEmail: async (db: Db, email: string) => {
    const row = await db.userEmail.findUnique({
      where: { email },
      select: { isVerified: true, user: { select: tokenUserSelect } },
    });
    return row ? { user: row.user, addressVerified: row.isVerified } : null;
  },

  findTokenUser: (db: Db, id: number) => db.user.findUnique({ where: { id }, select: tokenUserSelect }),

  findSnapshot: (db: Db, id: number) => db.user.findUnique({ where: { id }, select: snapshotSelect }),

  addressOf: (db: Db, email: string) => db.userEmail.findUnique({ where: { email }, select: { userId: true, isVerified: true } }),

  /** The address is proven: it and, when it is the primary one, the account's flag become verified. */
  markAddressVerified: async (db: Db, userId: number, email: string): Promise<void> => {
    await db.userEmail.update({ where: { email }, data: { isVerified: true, verifiedAt: new Date() } });
    await db.user.updateMany({ where: { id: userId, email }, data: { emailVerified: true } });
  },
};

/** What AccountsService needs of the account store (unit tests give fakes). */
export type AccountsStore = Pick<AccountsRepository, 'transaction' | 'emailExists' | 'usernameExists' | 'findByEmail'>;

/** The account store as AccountsService uses it: reads, and units of work over the functions above. */
export class AccountsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One unit of work: the `accountsRepository` functions, tokens, mails and events given `tx` commit together. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>, options?: { maxWait?: number; timeout?: number }): Promise<T> {
    return this.prisma.$transaction(work, options);
  }

  emailExists(email: string): Promise<boolean> {
    return accountsRepository.emailExists(this.prisma, email);
  }

  usernameExists(username: string): Promise<boolean> {
    return accountsRepository.usernameExists(this.prisma, username);
  }

  findByEmail(email: string) {
    return accountsRepository.findByEmail(this.prisma, email);
  }
}
