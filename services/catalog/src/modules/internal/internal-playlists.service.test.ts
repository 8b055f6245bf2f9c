import { describe, expect, it } from 'vitest';
import type { Playlist } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { admin, ann, bob, playlistRow } from '../../../test/unit/fakes.js';
import type { PlaylistPresenter } from '../playlists/playlist-presenter.js';
import type { PlaylistRow, PlaylistsRepository } from '../playlists/playlists.repository.js';
import { InternalPlaylistsService } from './internal-playlists.service.js';

/** Rows found by id (the repository applies R6 itself); owners in `hidden` are deleted or banned. */
function world(rows: PlaylistRow[], hidden: number[] = []) {
  const calls: unknown[][] = [];
  const repo: Pick<PlaylistsRepository, 'findManyByIds' | 'hiddenOwners'> = {
    findManyByIds: async (ids, scope) => {
      calls.push(['findManyByIds', ids, scope]);
      return rows.filter((row) => ids.includes(row.id));
    },
    hiddenOwners: async (owners) => {
      calls.push(['hiddenOwners', owners]);
      return new Set(hidden.filter((id) => owners.includes(id)));
    },
  };
  const presenter: Pick<PlaylistPresenter, 'presentList'> = {
    presentList: async (shown, _viewer, options = {}) => {
      calls.push(['presentList', options]);
      return shown.map((row) => ({ id: row.id }) as Playlist);
    },
  };
  return { service: new InternalPlaylistsService(repo, presenter), calls };
}

const request = (caller: Caller | null, playlistIds: number[]) => ({ viewerId: caller?.userId ?? null, viewerRole: caller?.role ?? 'LISTENER', playlistIds });
const ids = (playlists: Playlist[]) => playlists.map((p) => p.id);
const rows = [playlistRow({ id: 1 }), playlistRow({ id: 2, ownerId: 3 }), playlistRow({ id: 3, ownerId: ann.userId })];

describe('INTERNAL playlists batch read', () => {
  it('R14: leaves out playlists of deleted or banned owners, in the asked order, offline', async () => {
    const w = world(rows, [3]);
    expect(ids(await w.service.render(request(ann, [3, 2, 2, 1])))).toEqual([3, 1]);
    expect(w.calls).toEqual([
      ['findManyByIds', [3, 2, 1], { viewerId: 1, admin: false }],
      ['hiddenOwners', [2, 3]],
      ['presentList', { offline: true }],
    ]);
  });

  it("keeps the caller's own playlists and shows admins everything", async () => {
    expect(ids(await world(rows, [bob.userId]).service.render(request(bob, [1])))).toEqual([1]);
    const byAdmin = world(rows, [2, 3]);
    expect(ids(await byAdmin.service.render(request(admin, [1, 2, 3])))).toEqual([1, 2, 3]);
    expect(byAdmin.calls[0]).toEqual(['findManyByIds', [1, 2, 3], { viewerId: 9, admin: true }]);
  });

  it('answers an empty request without a read', async () => {
    const w = world(rows);
    await expect(w.service.render(request(null, []))).resolves.toEqual([]);
    expect(w.calls).toEqual([]);
  });
});
