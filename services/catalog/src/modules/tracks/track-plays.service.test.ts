import { describe, expect, it } from 'vitest';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import { TrackAccess } from './track-access.js';
import type { ReadTrack } from './track-reads.repository.js';
import { TrackPlaysService, type TrackPlaysServiceDeps } from './track-plays.service.js';

const listener = { ip: '203.0.113.5', userAgent: 'Mozilla/5.0' };

/** One track; every play is logged, counted unless `counted` says otherwise. */
function world(track: ReadTrack | null, counted = true) {
  const logged: Array<Record<string, unknown>> = [];
  const remembered: string[] = [];
  const forgotten: number[] = [];
  const byId = async (id: number) => (track?.id === id ? track : null);
  const reads = { byId, byIdsForViewers: async (pairs: Array<{ id: number }>) => Promise.all(pairs.map((p) => byId(p.id))) };
  const deps = {
    repo: {},
    reads,
    access: new TrackAccess({ byId, byIdForViewer: async () => null }),
    redis: {},
    historyIndex: {
      forget: async (userId: number) => {
        forgotten.push(userId);
      },
    },
    counting: {
      judge: async () => null,
      rememberPlay: async (playId: string) => {
        remembered.push(playId);
      },
    },
    playLog: {
      record: async (entry: Record<string, unknown>) => {
        logged.push(entry);
        return { id: `play-${logged.length}`, counted };
      },
    },
    clientSalt: 'salt',
  } as unknown as TrackPlaysServiceDeps;
  return { service: new TrackPlaysService(deps), logged, remembered, forgotten };
}

describe('TRK-17 record a play (R9)', () => {
  it("logs a listener's play with the track's artist, remembers it and refreshes the listener's history", async () => {
    const w = world(readTrack());
    await expect(w.service.play(7, ann, undefined, listener, 'play', 'feed')).resolves.toEqual({ message: 'Play counted.', playId: 'play-1' });
    expect(w.logged[0]).toMatchObject({ trackId: 7, artistId: 2, kind: 'play', listenerId: 1, clientHash: null, source: 'feed', seconds: null });
    expect(w.remembered).toEqual(['play-1']);
    expect(w.forgotten).toEqual([1]);
  });

  it('logs an anonymous play with a client hash instead of a listener', async () => {
    const w = world(readTrack());
    await w.service.play(7, null, undefined, listener, 'play');
    expect(w.logged[0]).toMatchObject({ listenerId: null, clientHash: expect.any(String) });
    expect(w.forgotten).toEqual([]);
  });

  it('says when a play was already counted', async () => {
    await expect(world(readTrack(), false).service.play(7, ann, undefined, listener, 'play')).resolves.toMatchObject({ message: 'Play already counted.' });
  });

  it('answers TRACK_NOT_FOUND for a track the caller may not see, unless the secret token opens it (R5)', async () => {
    const priv = readTrack({ isPrivate: true });
    await expect(world(priv).service.play(7, ann, undefined, listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(priv).service.play(7, ann, 'wrong', listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(priv).service.play(7, ann, 'tok', listener, 'play')).resolves.toMatchObject({ playId: 'play-1' });
    await expect(world(readTrack({ deletedAt: new Date() })).service.play(7, bob, 'tok', listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(null).service.play(7, ann, undefined, listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });

  it('R14 / R7: a token opens nothing of a banned artist or across a block, except for admins', async () => {
    await expect(world(readTrack({ artistBanned: true })).service.play(7, ann, 'tok', listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(readTrack({ blocked: true })).service.play(7, ann, 'tok', listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(readTrack({ artistBanned: true })).service.play(7, admin, 'tok', listener, 'play')).resolves.toMatchObject({ playId: 'play-1' });
  });

  it('R3: a BLOCKED track cannot be played (TRACK_NOT_PLAYABLE) except by its artist and admins', async () => {
    const blocked = readTrack({ access: 'BLOCKED' });
    await expect(world(blocked).service.play(7, ann, undefined, listener, 'play')).rejects.toMatchObject({ code: 'TRACK_NOT_PLAYABLE' });
    await expect(world(blocked).service.play(7, bob, undefined, listener, 'play')).resolves.toMatchObject({ playId: 'play-1' });
  });
});

describe('TRK-18 record a completed play', () => {
  it("logs the track's duration and neither remembers the play nor touches the history", async () => {
    const w = world(readTrack());
    await expect(w.service.play(7, ann, undefined, listener, 'complete')).resolves.toEqual({ message: 'Completed play counted.', playId: 'play-1' });
    expect(w.logged[0]).toMatchObject({ kind: 'complete', seconds: 60 });
    expect(w.remembered).toEqual([]);
    expect(w.forgotten).toEqual([]);
  });
});
