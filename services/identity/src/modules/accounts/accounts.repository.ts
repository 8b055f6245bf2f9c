import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

type Db = PrismaClient | Prisma.TransactionClient;

export const accountsRepository = {
  emailExists: async (db: Db, email: string) =>
    (await db.user.count({ where: { email: { equals: email, mode: 'insensitive' } } })) > 0,

  usernameExists: async (db: Db, username: string) => (await db.user.count({ where: { username } })) > 0,

  /** Usernames that start with `base`, to find a free numeric suffix in one query. */
  usernamesLike: async (db: Db, base: string) =>
    (await db.user.findMany({ where: { username: { startsWith: base } }, select: { username: true } })).map((u) => u.username),

  create: (db: Db, data: Prisma.UserCreateInput) =>
    db.user.create({
      data,
      select: { id: true, username: true, displayName: true, tier: true, role: true, isPrivate: true, createdAt: true },
    }),
};
