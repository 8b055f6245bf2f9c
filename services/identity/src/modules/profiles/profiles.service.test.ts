import { describe, expect, it } from 'vitest';
import type { Caller } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { IssuedTokens } from '../sessions/sessions.service.js';
import type { PeersClient, Relationship } from './peers.client.js';
import type { ProfileRow, ProfilesStore } from './profiles.repository.js';
import { ProfilesService } from './profiles.service.js';

const links = new Links({ WEB_BASE_URL: 'https://web.test', S3_ENDPOINT: 'https://s3.test', S3_BUCKET: 'media' } as IdentityConfig);
const client = { ip: '203.0.113.1', userAgent: 'vitest' };

const profile = (id: number, overrides: Partial<ProfileRow> = {}): ProfileRow => ({
  id,
  email: `u${id}@example.com`,
  emailVerified: true,
  username: `user${id}`,
  displayName: `User ${id}`,
  role: 'LISTENER',
  tier: 'FREE',
  bio: null,
  city: null,
  country: null,
  avatarKey: null,
  coverKey: null,
  favoriteGenres: [],
  instagram: null,
  twitter: null,
  website: null,
  supportLink: null,
  followerCount: 0,
  followingCount: 0,
  trackCount: 0,
  isPrivate: false,
  showHistory: true,
  isBanned: false,
  deleteAt: null,
  passwordHash: 'hash',
  createdAt: new Date('2026-01-01T00:00:00Z'),
  emails: [],
  ...overrides,
});

const caller = (userId: number, role: Caller['role'] = 'LISTENER'): Caller => ({ userId, role, tier: 'FREE', sessionId: 's-1', username: `user${userId}` });

/** Users by id in memory; social's relationships and billing's status as given. */
function setup(users: ProfileRow[], opts: { relationships?: Relationship[] | null; subscription?: string } = {}) {
  const rows = new Map(users.map((u) => [u.id, u]));
  const calls = { updates: [] as unknown[], tiers: [] as string[], reissued: 0 };
  const repo: ProfilesStore = {
    byId: (id) => Promise.resolve(rows.get(id) ?? null),
    byUsername: (username) => Promise.resolve([...rows.values()].find((u) => u.username === username) ?? null),
    imageKeys: (id) => Promise.resolve(rows.get(id) ?? null),
    usernameExists: (username) => Promise.resolve([...rows.values()].some((u) => u.username === username)),
    findTokenUser: (id) => Promise.resolve((rows.get(id) as unknown as TokenUser) ?? null),
    updateAndAnnounce: (id, data) => {
      const row = rows.get(id);
      if (!row) return Promise.resolve(null);
      calls.updates.push(data);
      const updated = { ...row, ...(data as Partial<ProfileRow>) };
      rows.set(id, updated);
      return Promise.resolve(updated);
    },
    setTier: (_id, tier) => {
      calls.tiers.push(tier);
      return Promise.resolve();
    },
  };
  const peers: Pick<PeersClient, 'relationships' | 'subscriptionStatus'> = {
    relationships: () => Promise.resolve(opts.relationships === null ? null : new Map((opts.relationships ?? []).map((r) => [r.userId, r]))),
    subscriptionStatus: () => Promise.resolve(opts.subscription ?? 'cancelled'),
  };
  const sessions = {
    reissue: () => {
      calls.reissued += 1;
      return Promise.resolve({ sessionId: 's-2', refreshToken: null } as IssuedTokens);
    },
  };
  return { service: new ProfilesService(repo, links, peers, sessions), calls, rows };
}

const relation = (userId: number, overrides: Partial<Relationship> = {}): Relationship => ({
  userId,
  isFollowing: false,
  isFollowed: false,
  isBlocked: false,
  hasBlockedViewer: false,
  ...overrides,
});

describe('USR-14 / USR-15 public profile (R7, R14)', () => {
  it('answers the profile with the caller-relative flags from social', async () => {
    const { service } = setup([profile(2)], { relationships: [relation(2, { isFollowing: true, isBlocked: false })] });
    await expect(service.publicProfile({ username: 'user2' }, caller(1))).resolves.toMatchObject({
      id: 2,
      isFollowing: true,
      profileUrl: 'https://web.test/user2',
    });
  });

  it('answers USER_NOT_FOUND for a banned or deleting user, or one who blocked the caller, except to an admin', async () => {
    const { service } = setup([profile(2, { isBanned: true }), profile(3, { deleteAt: new Date() }), profile(4)], {
      relationships: [relation(4, { hasBlockedViewer: true })],
    });
    for (const id of [2, 3, 4]) {
      await expect(service.publicProfile({ id }, caller(1))).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
      await expect(service.publicProfile({ id }, caller(9, 'ADMIN'))).resolves.toMatchObject({ id });
    }
  });

  it('answers USER_NOT_FOUND for a name outside the username alphabet without looking it up', async () => {
    const { service } = setup([profile(2, { username: 'Bad Name' })]);
    await expect(service.publicProfile({ username: 'Bad Name' }, null)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('degrades the flags to false when social cannot answer, and shows no flags to oneself', async () => {
    const { service } = setup([profile(2)], { relationships: null });
    await expect(service.publicProfile({ id: 2 }, caller(1))).resolves.toMatchObject({ isFollowing: false, isFollowed: false, isBlocked: false });
    await expect(service.publicProfile({ id: 2 }, caller(2))).resolves.toMatchObject({ isFollowing: false });
  });
});

describe('USR-6 change role', () => {
  it('switches LISTENER and ARTIST, and refuses FORBIDDEN to an admin account', async () => {
    const { service, calls } = setup([profile(1), profile(2, { role: 'ADMIN' })]);
    await expect(service.updateRole(1, 'ARTIST', 'c')).resolves.toMatchObject({ role: 'ARTIST' });
    await expect(service.updateRole(2, 'LISTENER', 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(calls.updates).toEqual([{ role: 'ARTIST' }]);
  });
});

describe('USR-7 change permalink (R1)', () => {
  it('refuses an invalid name with VALIDATION_FAILED (field permalink) and a taken one with USERNAME_TAKEN', async () => {
    const { service, calls } = setup([profile(1), profile(2)]);
    await expect(service.updatePermalink(1, 'Not Valid!', 'c')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'permalink' }] });
    await expect(service.updatePermalink(1, 'user2', 'c')).rejects.toMatchObject({ code: 'USERNAME_TAKEN' });
    expect(calls.updates).toEqual([]);
  });

  it('answers the unchanged profile for the current name without writing, and renames otherwise', async () => {
    const { service, calls } = setup([profile(1)]);
    await expect(service.updatePermalink(1, 'user1', 'c')).resolves.toMatchObject({ username: 'user1' });
    expect(calls.updates).toEqual([]);
    await expect(service.updatePermalink(1, 'new.name', 'c')).resolves.toMatchObject({ username: 'new.name' });
    expect(calls.updates).toEqual([{ username: 'new.name' }]);
  });
});

describe('USR-2 update profile', () => {
  it('writes only the given fields, de-duplicates genres and clears every social link on null', async () => {
    const { service, calls } = setup([profile(1, { instagram: 'ig' })]);
    await service.update(1, { bio: 'hi', favoriteGenres: ['rock', 'rock', 'jazz'] }, 'c');
    await service.update(1, { socialLinks: null }, 'c');
    expect(calls.updates).toEqual([
      { bio: 'hi', favoriteGenres: ['rock', 'jazz'] },
      { instagram: null, twitter: null, website: null, supportLink: null },
    ]);
  });

  it('answers UNAUTHORIZED when the account no longer exists', async () => {
    await expect(setup([]).service.update(1, { bio: 'x' }, 'c')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('USR-5 change tier (R12, R17)', () => {
  it('answers PAYMENT_REQUIRED for PRO without a paid subscription', async () => {
    const { service, calls } = setup([profile(1)], { subscription: 'cancelled' });
    await expect(service.updateTier(caller(1), 'PRO', client, 'c')).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect(calls.tiers).toEqual([]);
  });

  it('answers SUBSCRIPTION_STATE_CONFLICT for FREE while a subscription is paid (past_due included)', async () => {
    const { service } = setup([profile(1)], { subscription: 'past_due' });
    await expect(service.updateTier(caller(1), 'FREE', client, 'c')).rejects.toMatchObject({ code: 'SUBSCRIPTION_STATE_CONFLICT' });
  });

  it('sets PRO with an active subscription and reissues the tokens', async () => {
    const { service, calls } = setup([profile(1)], { subscription: 'trialing' });
    await expect(service.updateTier(caller(1), 'PRO', client, 'c')).resolves.toMatchObject({ tier: 'PRO', issued: { sessionId: 's-2' } });
    expect(calls).toMatchObject({ tiers: ['PRO'], reissued: 1 });
  });
});
