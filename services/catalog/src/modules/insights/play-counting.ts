import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createIsbotFromList, list } from 'isbot';
import type { PlayFlag } from './play-log.repository.js';

export interface PlayCountingLimits {
  /** R9: plays of one listener and track within this window count once. */
  dedupSeconds: number;
  /** A listener with more plays than this in the trailing minute is flooding. */
  floodPerMinute: number;
  /** A listener with more distinct tracks than this in the trailing hour is sweeping the catalogue. */
  sweepTracksPerHour: number;
}

/**
 * The anonymous listener as the play log stores it: a hash of the client address salted with the
 * configured salt and the UTC day, so the raw address is never stored and the hash of one address
 * changes every day (a void by client hash names one day's plays of that address).
 */
export function clientHash(salt: string, ip: string, at: Date): string {
  return createHash('sha256')
    .update(`${salt}\n${at.toISOString().slice(0, 10)}\n${ip}`)
    .digest('base64url')
    .slice(0, 22);
}

/**
 * isbot's patterns that name an HTTP library or a bare product token ("node", "undici", "okhttp/4",
 * "Java/17", anything with "http", "agent" or "url" in it) rather than a client declaring itself
 * automated. Apps and server-side players send exactly such User-Agents, so these do not mark a
 * play; crawlers, spiders, headless browsers, monitors and the rest of isbot's list do.
 */
const GENERIC_CLIENT_PATTERNS = new Set([
  String.raw`^[\w \.\-\(?:\):%]+(?:/v?\d+(?:\.\d+)?(?:\.\d{1,10})*?)?(?:,|$)`,
  String.raw`^[\w\-]+/[\w]+$`,
  String.raw`^\w+/[\w\(\)]*$`,
  String.raw`(?<!lib)http`,
  String.raw`node\b`,
  String.raw`agent\b`,
  String.raw`java(?!;)`,
  String.raw`^python`,
  'url',
]);
export const isAutomatedClient = createIsbotFromList(list.filter((pattern) => !GENERIC_CLIENT_PATTERNS.has(pattern)));

/** The listener a play is deduplicated under (R9): the user, or the client address plus User-Agent. */
export function listenerKey(userId: number | null, ip: string, userAgent: string): string {
  return userId !== null ? `u${userId}` : `a${createHash('sha256').update(`${ip}\n${userAgent}`).digest('base64url').slice(0, 22)}`;
}

/**
 * The counting rules of a play (docs/insights.md): an automated client (isbot's list on the User-Agent)
 * never counts; a listener (user, or anonymous client address) playing more than
 * `floodPerMinute` plays in the trailing minute or more than `sweepTracksPerHour` distinct tracks
 * in the trailing hour is flagged for that play; otherwise the R9 window decides (a repeat within
 * it does not count). Flagged plays are still logged. The windows live in Redis (sorted sets,
 * one script call per play: JUDGE_SCRIPT).
 */
/**
 * The windows and the R9 key of one play in one round trip (a script runs atomically): a play is
 * added to the listener's trailing minute (KEYS[1]) and hour of tracks (KEYS[2]); more plays than
 * the flood limit, or more tracks than the sweep limit, flag it (and leave the R9 key alone);
 * otherwise the R9 key (KEYS[3]) decides: set now, the play counts; already there, a repeat.
 * Completions only meet the R9 key. Answers the flag, '' for none.
 */
const JUDGE_SCRIPT = `
local now = tonumber(ARGV[1])
if ARGV[3] == 'play' then
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 60000)
  local plays = redis.call('ZCARD', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], 61000)
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 3600000)
  local tracks = redis.call('ZCARD', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], 3601000)
  if plays > tonumber(ARGV[5]) then return 'flood' end
  if tracks > tonumber(ARGV[6]) then return 'sweep' end
end
if redis.call('SET', KEYS[3], '1', 'EX', ARGV[7], 'NX') then return '' end
return 'repeat'`;

interface JudgeCommand {
  mspJudgePlay(rateKey: string, tracksKey: string, dedupKey: string, ...args: Array<string | number>): Promise<string>;
}

export class PlayCounting {
  /** Members of the trailing-minute set: this process's random prefix and a sequence (unique across replicas, no random bytes per play). */
  private readonly member = { prefix: randomBytes(6).toString('hex'), next: 0 };

  constructor(
    private readonly redis: Redis,
    private readonly limits: PlayCountingLimits,
  ) {
    if (!('mspJudgePlay' in redis)) redis.defineCommand('mspJudgePlay', { numberOfKeys: 3, lua: JUDGE_SCRIPT });
  }

  async judge(input: { kind: 'play' | 'complete'; trackId: number; who: string; userAgent: string; now: Date }): Promise<PlayFlag | null> {
    if (input.userAgent && isAutomatedClient(input.userAgent)) return 'bot';
    const now = input.now.getTime();
    const flag = await (this.redis as unknown as JudgeCommand).mspJudgePlay(
      `catalog:plays:rate:${input.who}`,
      `catalog:plays:tracks:${input.who}`,
      `catalog:${input.kind}:${input.trackId}:${input.who}`,
      now,
      `${now}:${this.member.prefix}:${this.member.next++}`,
      input.kind,
      input.trackId,
      this.limits.floodPerMinute,
      this.limits.sweepTracksPerHour,
      this.limits.dedupSeconds,
    );
    return flag === '' ? null : (flag as PlayFlag);
  }

  /** Remembers which track a play id belongs to, for progress events naming it (6 h). */
  async rememberPlay(playId: string, trackId: number, who: string): Promise<void> {
    await Promise.all([
      this.redis.set(`catalog:play:${playId}`, String(trackId), 'EX', 21_600),
      this.redis.set(`catalog:lastplay:${trackId}:${who}`, playId, 'EX', 21_600),
    ]);
  }

  /**
   * The plays progress events belong to, in one round trip: each named play if it is of this
   * track, else the listener's latest play of the track; null when none is known.
   */
  async playsOf(trackId: number, who: string, playIds: Array<string | undefined>): Promise<Array<string | null>> {
    if (playIds.length === 0) return [];
    const keys = playIds.map((id) => (id ? `catalog:play:${id}` : `catalog:lastplay:${trackId}:${who}`));
    const values = await this.redis.mget(...keys);
    return playIds.map((id, i) => (id ? (values[i] === String(trackId) ? id : null) : (values[i] ?? null)));
  }
}
