import { describe, expect, it } from 'vitest';
import type { Playlist } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { admin, ann, bob, playlistRow } from '../../../test/unit/fakes.js';
import type { PlaylistPresenter } from './playlist-presenter.js';
import type { PlaylistReads, PlaylistRow } from './playlists.repository.js';
import { PlaylistsService } from './playlists.service.js';

interface World {
  rows?: PlaylistRow[];
  /** Owners deleted or banned (R14). */
  hidden?: number[];
  /** [viewer, user] pairs a block separates (R7). */
  blocks?: Array<[number, number]>;
  users?: Array<{ userId: number; username: string; isBanned: boolean }>;
  /** The presenter answers null (a block separates the caller from the owner). */
  presenterRefuses?: boolean;
}

function world(options: World = {}) {
  const rows = options.rows ?? [playlistRow()];
  const users = options.users ?? [{ userId: bob.userId, username: 'bob', isBanned: false }];
  const listed: Array<{ ownerId: number; publicOnly: boolean }> = [];
  const rendered: Array<{ id: number; viaToken: boolean }> = [];
  const tokens: string[] = [];
  const repo: PlaylistReads = {
    findById: async (id) => rows.find((r) => r.id === id) ?? null,
    findBySlug: async (slug) => rows.find((r) => r.playlistSlug === slug) ?? null,
    findByToken: async (token) => rows.find((r) => r.secretToken === token) ?? null,
    ownerHidden: async (userId) => (options.hidden ?? []).includes(userId),
    blocked: async (viewerId, userId) => (options.blocks ?? []).some(([a, b]) => a === viewerId && b === userId),
    findUser: async (who) => users.find((u) => u.userId === who.userId || u.username === who.username) ?? null,
    listByOwner: async (ownerId, publicOnly) => {
      listed.push({ ownerId, publicOnly });
      return { rows: rows.filter((r) => r.ownerId === ownerId && (!publicOnly || !r.isPrivate)), total: 1 };
    },
    username: async (userId) => users.find((u) => u.userId === userId)?.username ?? null,
    setSecretToken: async (id, secretToken) => {
      tokens.push(secretToken);
      return { ...rows.find((r) => r.id === id)!, secretToken };
    },
  };
  const presenter: Pick<PlaylistPresenter, 'presentOne' | 'presentList'> = {
    presentOne: async (row, _caller, o) => {
      rendered.push({ id: row.id, viaToken: o.viaToken });
      if (options.presenterRefuses) return null;
      return { id: row.id, owner: { username: 'bob' }, paginatedTrackResponse: { content: [], totalElements: 0 } } as unknown as Playlist;
    },
    presentList: async (list) => list.map((row) => ({ id: row.id }) as Playlist),
  };
  const service = new PlaylistsService({ repo, presenter, webBaseUrl: 'https://web.test/' });
  return { service, listed, rendered, tokens };
}

const query = { page: 0, size: 20 };
const privateMix = playlistRow({ isPrivate: true });
const stranger: Caller = { ...ann, userId: 3, username: 'cy' };

describe('PLS-4 get a playlist (R6, R7, R14)', () => {
  it('shows a public playlist to anyone and a private one only to its owner and admins', async () => {
    await expect(world().service.get(5, null, query)).resolves.toMatchObject({ id: 5 });
    await expect(world({ rows: [privateMix] }).service.get(5, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world({ rows: [privateMix] }).service.get(5, null, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world({ rows: [privateMix] }).service.get(5, bob, query)).resolves.toMatchObject({ id: 5 });
    await expect(world({ rows: [privateMix] }).service.get(5, admin, query)).resolves.toMatchObject({ id: 5 });
  });

  it("answers PLAYLIST_NOT_FOUND for a banned or deleted owner's playlist, except to admins", async () => {
    await expect(world({ hidden: [bob.userId] }).service.get(5, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world({ hidden: [bob.userId] }).service.get(5, admin, query)).resolves.toMatchObject({ id: 5 });
  });

  it('answers PLAYLIST_NOT_FOUND for an unknown id and when a block separates the caller from the owner', async () => {
    await expect(world().service.get(6, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world({ presenterRefuses: true }).service.get(5, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-2 own playlist and owner-only operations', () => {
  it("answers PLAYLIST_NOT_FOUND for someone else's playlist, even to an admin", async () => {
    await expect(world().service.getOwn(5, bob, query)).resolves.toMatchObject({ id: 5 });
    await expect(world().service.getOwn(5, admin, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });

  it('ownedRow: the owner passes, an admin gets FORBIDDEN, anyone else PLAYLIST_NOT_FOUND', async () => {
    await expect(world().service.ownedRow(5, bob)).resolves.toMatchObject({ id: 5 });
    await expect(world().service.ownedRow(5, admin)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(world().service.ownedRow(5, ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world().service.ownedRow(6, bob)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('USR-19 a user’s playlists', () => {
  it('lists only public playlists to others, all to the owner and admins', async () => {
    const w = world();
    await w.service.listByUser({ username: 'bob' }, ann, query);
    await w.service.listByUser({ userId: bob.userId }, bob, query);
    await w.service.listByUser({ userId: bob.userId }, admin, query);
    await w.service.listByUser({ userId: bob.userId }, null, query);
    expect(w.listed.map((l) => l.publicOnly)).toEqual([true, false, false, true]);
  });

  it('R14 / R7: a banned user is USER_NOT_FOUND except to admins; so is a user a block separates from the caller', async () => {
    const banned = [{ userId: bob.userId, username: 'bob', isBanned: true }];
    await expect(world({ users: banned }).service.listByUser({ userId: 2 }, ann, query)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(world({ users: banned }).service.listByUser({ userId: 2 }, admin, query)).resolves.toMatchObject({ totalElements: 1 });
    await expect(world({ blocks: [[1, 2]] }).service.listByUser({ userId: 2 }, ann, query)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(world().service.listByUser({ username: 'nobody' }, ann, query)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });
});

describe('PLS-17 a playlist of a given user', () => {
  it('answers PLAYLIST_NOT_FOUND unless the playlist belongs to that user', async () => {
    const users = [
      { userId: bob.userId, username: 'bob', isBanned: false },
      { userId: 3, username: 'cy', isBanned: false },
    ];
    await expect(world({ users }).service.getOfUser({ username: 'bob' }, 5, ann, query)).resolves.toMatchObject({ id: 5 });
    await expect(world({ users }).service.getOfUser({ username: 'cy' }, 5, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-14 open a playlist by its secret token (R5)', () => {
  it('opens a private playlist for anyone holding the token, rendered via the token', async () => {
    const w = world({ rows: [privateMix] });
    await expect(w.service.byToken('ptok', stranger, query)).resolves.toMatchObject({ id: 5 });
    expect(w.rendered).toEqual([{ id: 5, viaToken: true }]);
    await expect(w.service.byToken('wrong', stranger, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });

  it("R14: the token of a banned owner's playlist opens nothing", async () => {
    await expect(world({ rows: [privateMix], hidden: [2] }).service.byToken('ptok', stranger, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-16 resolve a playlist slug', () => {
  it('resolves a visible playlist and never a private one for others', async () => {
    await expect(world().service.resolve('mix', ann)).resolves.toEqual({ type: 'PLAYLIST', id: 5, resourceType: 'PLAYLIST', resourceId: 5 });
    await expect(world({ rows: [privateMix] }).service.resolve('mix', ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world().service.resolve('other', ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-15 embed code', () => {
  it('carries the token only for a private playlist (seen by its owner) and escapes the title', async () => {
    const pub = await world({ rows: [playlistRow({ title: '<b>"Mix"</b>' })] }).service.embed(5, null);
    expect(pub.embedUrl).toBe(`https://web.test/embed/player?url=${encodeURIComponent('https://web.test/bob/sets/mix')}`);
    expect(pub.embedCode).toContain('title="&#60;b&#62;&#34;Mix&#34;&#60;/b&#62;"');
    const own = await world({ rows: [privateMix] }).service.embed(5, bob);
    expect(own.embedUrl).toMatch(/&token=ptok$/);
    await expect(world({ rows: [privateMix] }).service.embed(5, ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-12 / PLS-13 secret links (R5)', () => {
  it('gives the owner the link with the token, never another caller', async () => {
    await expect(world().service.getSecretLink(5, bob)).resolves.toEqual({
      secretToken: 'ptok',
      secretUrl: 'https://web.test/bob/sets/mix?token=ptok',
      expiresAt: null,
    });
    await expect(world().service.getSecretLink(5, ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(world().service.regenerateSecretLink(5, admin)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('regenerates a new 32-character URL-safe token', async () => {
    const w = world();
    const link = await w.service.regenerateSecretLink(5, bob);
    expect(link.secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(link.secretToken).not.toBe('ptok');
    expect(w.tokens).toEqual([link.secretToken]);
  });
});

describe('PLS-11 the tracks of a playlist', () => {
  it('answers the page of the visible playlist', async () => {
    await expect(world().service.tracks(5, ann, query)).resolves.toEqual({ content: [], totalElements: 0 });
    await expect(world({ rows: [privateMix] }).service.tracks(5, ann, query)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});
