import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool } from '@msp/db';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet, SERVICES } from './fleet.js';

/**
 * Account deletion across the fleet (docs/account-control.md "Deletion"): a user with a track, an
 * avatar, a playlist, likes, a repost, comments, follows both ways, plays, a conversation and
 * notifications is deleted (ACC-5 at once; ACC-3 after a grace of a few seconds). Then a scan of
 * every table of the seven databases finds no row carrying the user's id (in user-id-like columns),
 * e-mail, username or display name, no object the user's activity stored remains, and the other
 * party still reads the conversation.
 */
const execFileAsync = promisify(execFile);
const fleet = new Fleet();
const GRACE_SECONDS = 4;
const PASSWORD = 'a long enough secret';
const ADMIN = 990_300;

interface User {
  userId: number;
  username: string;
  email: string;
  displayName: string;
  token: string;
}

let dir: string;
let wav: string;
let png: string;
let other: User;
let otherTrack = 0;

const identity = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const media = () => fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;

const sign = (userId: number, username: string, role: 'ARTIST' | 'ADMIN' = 'ARTIST') =>
  identity().keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');

async function call(method: string, url: string, token: string | null, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A unique random identity: the scan looks for these strings everywhere. */
async function register(): Promise<User> {
  const tag = randomBytes(6).toString('hex');
  const email = `gone-${tag}@example.com`;
  const displayName = `Zed${tag}`;
  const res = await call('POST', '/api/auth/register/local', null, { email, displayName, password: PASSWORD, dateOfBirth: '1990-02-03' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { userId, username } = res.body as { userId: number; username: string };
  return { userId, username, email, displayName, token: await sign(userId, username) };
}

async function uploadTrack(user: User, title: string): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title, genre: 'Electronic', uploadId: randomUUID() })) form.append(k, v);
  form.append('audioFile', new Blob([await readFile(wav)]), 'tone.wav');
  const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
    signal: AbortSignal.timeout(80_000),
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  const trackId = (JSON.parse(text) as { trackId?: number; id?: number }).trackId ?? (JSON.parse(text) as { id: number }).id;
  await waitFor(
    async () => {
      const s = await call('GET', `/api/tracks/${trackId}/status`, user.token);
      if (s.body.status === 'FAILED') throw new Error(`track ${trackId} failed`);
      return s.body.status === 'FINISHED';
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `track ${trackId} did not finish` },
  );
  return trackId;
}

async function setAvatar(user: User): Promise<void> {
  const form = new FormData();
  form.append('profilePic', new Blob([await readFile(png)]), 'me.png');
  const res = await fetch(`${fleet.gatewayUrl}/api/users/me/images`, { method: 'PATCH', headers: { authorization: `Bearer ${user.token}` }, body: form });
  const text = await res.text();
  expect(res.status, text).toBe(200);
}

async function allObjects(): Promise<Set<string>> {
  return new Set(await catalog().infra.storage.list(''));
}

/**
 * Everything a user leaves across the fleet, with the other user on the other side. Returns the
 * object keys the user's own activity stored, and the conversation id.
 */
async function populate(user: User): Promise<{ objects: string[]; conversationId: number }> {
  const before = await allObjects();
  await setAvatar(user);
  const track = await uploadTrack(user, `Track of ${user.displayName}`);
  const objects = [...(await allObjects())].filter((k) => !before.has(k));
  const ok = (res: { status: number; body: unknown }, what: string) => expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);

  const playlist = await call('POST', '/api/playlists', user.token, { title: `Set of ${user.displayName}`, isPrivate: false });
  ok(playlist, 'PLS-3');
  ok(await call('POST', `/api/playlists/${playlist.body.id as number}/tracks`, user.token, { trackId: otherTrack }), 'PLS-7');
  ok(await call('POST', `/api/playlists/${playlist.body.id as number}/tracks`, user.token, { trackId: track }), 'PLS-7 own');
  // The user's activity on the other's content, and the other's on the user's.
  ok(await call('POST', `/api/tracks/${otherTrack}/like`, user.token), 'ENG-1');
  ok(await call('POST', `/api/tracks/${otherTrack}/repost`, user.token), 'ENG-4');
  ok(await call('POST', `/api/tracks/${otherTrack}/comments`, user.token, { body: `Nice one from ${user.username}` }), 'ENG-13');
  ok(await call('POST', `/api/tracks/${otherTrack}/play`, user.token, {}), 'TRK-17');
  ok(await call('POST', `/api/users/${other.userId}/follow`, user.token), 'FOL-1');
  ok(await call('POST', `/api/users/${user.userId}/follow`, other.token), 'FOL-1 back');
  ok(await call('POST', `/api/tracks/${track}/like`, other.token), 'ENG-1 other');
  ok(await call('POST', `/api/tracks/${track}/comments`, other.token, { body: 'Welcome!' }), 'ENG-13 other');
  ok(await call('POST', `/api/playlists/${playlist.body.id as number}/like`, other.token), 'ENG-7 other');
  const started = await call('POST', `/api/conversations/${other.userId}/start`, user.token, {});
  ok(started, 'MSG-2');
  const conversationId = (started.body.id ?? started.body.conversationId) as number;
  ok(await call('POST', `/api/conversations/${conversationId}/messages`, user.token, { body: 'Hello, it is me' }), 'MSG-4');
  ok(await call('POST', `/api/conversations/${conversationId}/messages`, other.token, { body: 'Hello back' }), 'MSG-4 other');
  // Notifications reach the user (the other's follow, like and comment) before the deletion.
  await waitFor(async () => ((await call('GET', '/api/notifications', user.token)).body.content as unknown[] | undefined)?.length, {
    timeoutMs: 15_000,
    message: 'no notification reached the user',
  });
  return { objects, conversationId };
}

const USER_COLUMN =
  /^(user|owner|artist|listener|sender|recipient|author|actor|follower|followee|followed|following|blocker|blocked|reporter|reported_user|uploader|subscriber|member|participant|liker|reposter|commenter|creator|viewer|peer|other_user|from_user|to_user|participant_a|participant_b|user_a|user_b)(_id|_ids)?$|_user_id$/;

interface Finding {
  database: string;
  table: string;
  column: string;
  rows: number;
  types?: string[];
}

/** Every table of every database of the fleet: user-id-like integer columns, and text/json columns for the strings. */
async function scan(user: User): Promise<Finding[]> {
  const findings: Finding[] = [];
  const strings = [user.email, user.username, user.displayName];
  for (const service of SERVICES) {
    const client = createPgPool(fleet.env(service).DATABASE_URL!, 1);
    try {
      const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string; udt_name: string }>(
        `SELECT c.table_name, c.column_name, c.data_type, c.udt_name
           FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name NOT IN ('_prisma_migrations')`,
      );
      for (const c of columns) {
        const q = `"${c.table_name}"."${c.column_name}"`;
        let sql: string | null = null;
        let params: unknown[] = [];
        const integer = ['int2', 'int4', 'int8'].includes(c.udt_name);
        const integerArray = ['_int2', '_int4', '_int8'].includes(c.udt_name);
        const userish = USER_COLUMN.test(c.column_name) || (c.column_name === 'id' && /^(users|user_summaries|user_copies|artists)$/.test(c.table_name));
        if (integer && userish) {
          sql = `SELECT count(*)::int AS n FROM "${c.table_name}" WHERE ${q} = $1`;
          params = [user.userId];
        } else if (integerArray && userish) {
          sql = `SELECT count(*)::int AS n FROM "${c.table_name}" WHERE $1 = ANY(${q})`;
          params = [user.userId];
        } else if (['text', 'varchar', 'bpchar', 'json', 'jsonb', '_text', '_varchar', 'citext'].includes(c.udt_name)) {
          sql = `SELECT count(*)::int AS n FROM "${c.table_name}" WHERE ${strings.map((_, i) => `strpos(lower(${q}::text), $${i + 1}) > 0`).join(' OR ')}`;
          params = strings.map((s) => s.toLowerCase());
        }
        if (!sql) continue;
        const { rows } = await client.query<{ n: number }>(sql, params);
        if (rows[0]!.n === 0) continue;
        const finding: Finding = { database: service, table: c.table_name, column: c.column_name, rows: rows[0]!.n };
        if (c.table_name === 'outbox_event') {
          // Which events still carry the user (to name them in the failure).
          const types = await client.query<{ type: string }>(sql.replace('count(*)::int AS n', 'DISTINCT type'), params);
          finding.types = types.rows.map((r) => r.type);
        }
        findings.push(finding);
      }
    } finally {
      await client.end();
    }
  }
  return findings;
}

/**
 * Records kept on purpose (docs/account-control.md): billing's invoices keep their amounts and dates
 * with the personal fields removed; none of them is matched by the scan unless a service keeps more.
 */
const KEPT: Array<Pick<Finding, 'database' | 'table'>> = [];
const unexpected = (findings: Finding[]) => findings.filter((f) => !KEPT.some((k) => k.database === f.database && k.table === f.table));

async function expectGone(user: User, objects: string[], conversationId: number) {
  let last: Finding[] = [];
  const scanned = await waitFor(
    async () => {
      last = unexpected(await scan(user));
      return last.length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 2000, message: 'rows of the deleted user remain' },
  ).then(
    () => null,
    () => `rows of user ${user.userId} remain: ${JSON.stringify(last)}`,
  );
  // Objects and the conversation are checked even when rows remain, so one run reports everything.
  const remaining = await allObjects();
  expect(objects.filter((k) => remaining.has(k))).toEqual([]);
  expect(await catalog().infra.storage.list(`images/users/${user.userId}/`)).toEqual([]);
  // The other party still reads the conversation: their own message stays, the user's shows as a deleted user's.
  const thread = await call('GET', `/api/conversations/${conversationId}/messages`, other.token);
  expect(thread.status).toBe(200);
  const text = JSON.stringify(thread.body);
  expect(text).toContain('Hello back');
  expect(text).not.toContain(user.username);
  expect(text).not.toContain(user.displayName);
  expect(scanned).toBeNull();
}

beforeAll(async () => {
  // A busy machine makes argon2 (AUTH-5) and uploads slow: a longer upstream timeout than the fleet's 3 s.
  await fleet.start({ UPSTREAM_TIMEOUT_MS: '20000' }, { identity: { ACCOUNT_DELETION_GRACE: `${GRACE_SECONDS}s`, ACCOUNT_DELETION_POLL_MS: '500' } });
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-deletion-'));
  const ffmpeg = media().media.ffmpeg.path;
  wav = path.join(dir, 'tone.wav');
  png = path.join(dir, 'me.png');
  await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000:duration=2', '-y', wav]);
  await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=blue:s=64x64', '-frames:v', '1', '-y', png]);
  other = await register();
  otherTrack = await uploadTrack(other, 'The other one');
}, 180_000);

afterAll(async () => {
  await fleet.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ACC-5 delete a user (admin): nothing of the user remains in the fleet', () => {
  it('removes every row and object of the user within 60 s; the other party keeps the conversation', async () => {
    const user = await register();
    const { objects, conversationId } = await populate(user);
    expect(objects.length).toBeGreaterThan(0);
    expect((await scan(user)).length).toBeGreaterThan(0);
    const admin = await sign(ADMIN, 'admin-deletion', 'ADMIN');
    const res = await call('DELETE', `/api/admin/users/${user.userId}`, admin);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    // Locked at once: the user's token is refused by the gateway.
    expect((await call('GET', '/api/users/me', user.token)).body.code).toBe('ACCOUNT_PENDING_DELETION');
    await expectGone(user, objects, conversationId);
    expect((await call('DELETE', `/api/admin/users/${user.userId}`, admin)).status).toBe(404);
  }, 180_000);
});

describe('ACC-3 delete my account: after the grace nothing of the user remains', () => {
  it('locks at once, hides the profile, and removes everything once the grace has passed', async () => {
    const user = await register();
    const { objects, conversationId } = await populate(user);
    const wrong = await call('DELETE', '/api/users/me', user.token, { password: 'not it at all' });
    expect(wrong.status).toBe(403);
    const res = await call('DELETE', '/api/users/me', user.token, { password: PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await call('GET', '/api/users/me', user.token)).body.code).toBe('ACCOUNT_PENDING_DELETION');
    expect((await call('GET', `/api/users/${user.userId}`, other.token)).status).toBe(404);
    await expectGone(user, objects, conversationId);
  }, 180_000);
});
