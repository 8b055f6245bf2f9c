import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

type Db = PrismaClient | Prisma.TransactionClient;

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
