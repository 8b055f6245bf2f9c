import { describe, expect, it } from 'vitest';
import { REVOCATION_KEYS, type UploadStatusMessage } from '@msp/contracts';
import { KeysUnavailableError, TokenRejectedError, type Principal } from './access-token.verifier.js';
import type { Refusal, RevocationReader } from './account-standing.js';
import { RealtimeService } from './realtime.service.js';
import { placeholderStatus, type StoredStatus } from './track-status.store.js';

const ann: Principal = { userId: 1, username: 'ann', role: 'ARTIST', tier: 'FREE', sessionId: 's-ann' };
const bob: Principal = { userId: 2, username: 'bob', role: 'LISTENER', tier: 'FREE', sessionId: 's-bob' };
const logger = { warn: () => undefined, error: () => undefined };

/** Redis as the revocation keys hold it: one MGET per session in one pipeline. */
function fakeRedis(keys: Record<string, string>, opts: { down?: boolean } = {}) {
  const rounds: number[] = [];
  const redis: RevocationReader = {
    pipeline: () => {
      const queued: string[][] = [];
      const pipeline = {
        mget: (...k: string[]) => {
          queued.push(k);
          return pipeline;
        },
        exec: () => {
          rounds.push(queued.length);
          if (opts.down) return Promise.reject(new Error('ECONNREFUSED'));
          return Promise.resolve(queued.map((k) => [null, k.map((key) => keys[key] ?? null)]));
        },
      };
      return pipeline as unknown as ReturnType<RevocationReader['pipeline']>;
    },
  };
  return { redis, rounds };
}

const verifier = (tokens: Record<string, Principal | Error>) => ({
  verify: (token: string) => {
    const found = tokens[token];
    if (found === undefined) return Promise.reject(new TokenRejectedError('bad signature'));
    return found instanceof Error ? Promise.reject(found) : Promise.resolve(found);
  },
});

const noStatus = { last: () => Promise.resolve(null) };

describe('WS-1 CONNECT: who may open a session', () => {
  const tokens = { good: ann, bob, keysDown: new KeysUnavailableError(new Error('timeout')) };

  it('accepts a valid token of a user in good standing', async () => {
    const { redis } = fakeRedis({});
    await expect(new RealtimeService(verifier(tokens), redis, noStatus, logger).authenticate('good')).resolves.toEqual({ ok: true, principal: ann });
  });

  it('refuses a missing or rejected token with UNAUTHORIZED', async () => {
    const service = new RealtimeService(verifier(tokens), fakeRedis({}).redis, noStatus, logger);
    await expect(service.authenticate(undefined)).resolves.toMatchObject({ ok: false, refusal: { code: 'UNAUTHORIZED' } });
    await expect(service.authenticate('forged')).resolves.toMatchObject({ ok: false, refusal: { code: 'UNAUTHORIZED' } });
  });

  it("answers SERVICE_UNAVAILABLE when identity's keys cannot be fetched, or Redis cannot answer (fail closed)", async () => {
    const service = new RealtimeService(verifier(tokens), fakeRedis({}).redis, noStatus, logger);
    await expect(service.authenticate('keysDown')).resolves.toMatchObject({ ok: false, refusal: { code: 'SERVICE_UNAVAILABLE' } });
    const down = new RealtimeService(verifier(tokens), fakeRedis({}, { down: true }).redis, noStatus, logger);
    await expect(down.authenticate('good')).resolves.toMatchObject({ ok: false, refusal: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('refuses a revoked session, a banned, suspended or deleting account (R14)', async () => {
    const cases: Array<[Record<string, string>, Refusal['code']]> = [
      [{ [REVOCATION_KEYS.revokedSession(ann.sessionId)]: '1' }, 'UNAUTHORIZED'],
      [{ [REVOCATION_KEYS.userStatus(ann.userId)]: 'banned' }, 'ACCOUNT_BANNED'],
      [{ [REVOCATION_KEYS.userStatus(ann.userId)]: `suspended:${new Date(Date.now() + 60_000).toISOString()}` }, 'ACCOUNT_SUSPENDED'],
      [{ [REVOCATION_KEYS.userStatus(ann.userId)]: 'deleted' }, 'ACCOUNT_PENDING_DELETION'],
    ];
    for (const [keys, code] of cases) {
      const service = new RealtimeService(verifier(tokens), fakeRedis(keys).redis, noStatus, logger);
      await expect(service.authenticate('good')).resolves.toMatchObject({ ok: false, refusal: { code } });
    }
  });

  it('lets a lapsed suspension through', async () => {
    const keys = { [REVOCATION_KEYS.userStatus(ann.userId)]: `suspended:${new Date(Date.now() - 1000).toISOString()}` };
    await expect(new RealtimeService(verifier(tokens), fakeRedis(keys).redis, noStatus, logger).authenticate('good')).resolves.toMatchObject({ ok: true });
  });
});

describe('WS-2 track status replay on SUBSCRIBE', () => {
  const finished: UploadStatusMessage = {
    ...placeholderStatus('u-1'),
    trackState: 'FINISHED',
    status: 'FINISHED',
    progressPercentage: 100,
    progressPercent: 100,
  };
  const store = (last: StoredStatus | null) => ({ last: () => Promise.resolve(last) });
  const { redis } = fakeRedis({});

  it('replays the last status to its uploader only', async () => {
    const service = new RealtimeService(verifier({}), redis, store({ artistId: ann.userId, status: finished }), logger);
    const replay = await service.replayTrackStatus(ann, 'u-1');
    expect(JSON.parse(replay?.body ?? 'null')).toMatchObject({ uploadId: 'u-1', trackState: 'FINISHED' });
    expect(replay?.rank).toBeGreaterThan(0);
    await expect(service.replayTrackStatus(bob, 'u-1')).resolves.toBeNull();
  });

  it('sends the rank-0 placeholder, carrying only the id given, when no status is known', async () => {
    const replay = await new RealtimeService(verifier({}), redis, noStatus, logger).replayTrackStatus(bob, 'u-9');
    expect(replay?.rank).toBe(0);
    expect(JSON.parse(replay?.body ?? 'null')).toMatchObject({ uploadId: 'u-9', trackId: null, trackState: 'UPLOADING', trackResponse: null });
  });
});

describe('WS-1 sweep of open sessions', () => {
  it('closes the sessions whose token was revoked or whose user got locked, in one Redis round trip', async () => {
    const failed: Array<[string, Refusal['code']]> = [];
    const session = (principal: Principal | null, name: string) => ({ principal, fail: (refusal: Refusal) => void failed.push([name, refusal.code]) });
    const keys = { [REVOCATION_KEYS.revokedSession(bob.sessionId)]: '1', [REVOCATION_KEYS.userStatus(3)]: 'banned' };
    const { redis, rounds } = fakeRedis(keys);
    const sessions = [session(ann, 'ann'), session(null, 'not-yet-connected'), session(bob, 'bob'), session({ ...bob, userId: 3, sessionId: 's-3' }, 'banned')];
    await new RealtimeService(verifier({}), redis, noStatus, logger).sweep({ connected: () => sessions });
    expect(failed).toEqual([
      ['bob', 'UNAUTHORIZED'],
      ['banned', 'ACCOUNT_BANNED'],
    ]);
    expect(rounds).toEqual([3]);
  });
});
