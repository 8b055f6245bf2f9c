import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import { assertActivityVisible, requireVisibleUser, type UserRow } from './users.repository.js';
import type { Viewer } from './viewer.js';

const ann: Viewer = { id: 1, isAdmin: false };
const admin: Viewer = { id: 99, isAdmin: true };

function user(overrides: Partial<UserRow> = {}): UserRow {
  return { userId: 2, username: 'bob', isPrivate: false, blockedByViewer: false, hasBlockedViewer: false, isBanned: false, ...overrides };
}

const repoWith = (row: UserRow | null) => ({ find: async () => row });

async function codeOf(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

describe('R7: a user who blocked the viewer does not exist for them', () => {
  it('answers USER_NOT_FOUND when the user blocked the viewer', async () => {
    expect(await codeOf(requireVisibleUser(repoWith(user({ hasBlockedViewer: true })), { id: 2 }, ann))).toBe('USER_NOT_FOUND');
  });

  it('still finds a user the viewer blocked (the blocker sees the profile, marked blocked)', async () => {
    expect((await requireVisibleUser(repoWith(user({ blockedByViewer: true })), { id: 2 }, ann)).blockedByViewer).toBe(true);
  });

  it('lets admins see a user who blocked them', async () => {
    expect((await requireVisibleUser(repoWith(user({ hasBlockedViewer: true })), { id: 2 }, admin)).userId).toBe(2);
  });

  it('answers USER_NOT_FOUND for an unknown user', async () => {
    expect(await codeOf(requireVisibleUser(repoWith(null), { username: 'nobody' }, ann))).toBe('USER_NOT_FOUND');
  });
});

describe('R14: a banned user does not exist for anyone but admins', () => {
  it('hides a banned user', async () => {
    expect(await codeOf(requireVisibleUser(repoWith(user({ isBanned: true })), { id: 2 }, ann))).toBe('USER_NOT_FOUND');
    expect((await requireVisibleUser(repoWith(user({ isBanned: true })), { id: 2 }, admin)).isBanned).toBe(true);
  });
});

describe("R8: a private user's activity lists are for the user and admins only", () => {
  const privateUser = user({ isPrivate: true });

  it('refuses others with PROFILE_PRIVATE', () => {
    expect(() => assertActivityVisible(privateUser, ann)).toThrow(expect.objectContaining({ code: 'PROFILE_PRIVATE' }));
    expect(() => assertActivityVisible(privateUser, { id: 0, isAdmin: false })).toThrow(expect.objectContaining({ code: 'PROFILE_PRIVATE' }));
  });

  it('lets the user and admins read them', () => {
    expect(() => assertActivityVisible(privateUser, { id: 2, isAdmin: false })).not.toThrow();
    expect(() => assertActivityVisible(privateUser, admin)).not.toThrow();
  });

  it("lets anyone read a public user's lists", () => {
    expect(() => assertActivityVisible(user(), ann)).not.toThrow();
  });
});
