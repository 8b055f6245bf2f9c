import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoudnessReportSchema, NotificationSchema, ReportSchema, UploadAcceptedSchema, UploadStatusMessageSchema, type Report } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

/**
 * Duplicate detection's consequences through the gateway (docs/fingerprints.md). An artist's
 * re-upload of their own audio: told (DUPLICATE_UPLOAD, SND-1 `duplicateOf`), nothing held back.
 * Another artist's MP3 128k copy with the first 5 s cut: held back from search and lists (its
 * artist still sees it), a COPYRIGHT report with no reporter and the evidence, both artists
 * notified; the admin dismissing the report (MOD-7) releases it.
 */
const execFileAsync = promisify(execFile);
const fleet = new Fleet();
const SECONDS = 20;

let dir: string;
let ffmpeg: string;
type User = { id: number; token: string; username: string };
const users: Record<'original' | 'copier' | 'listener' | 'admin', User> = {} as never;
const tracks: Record<'source' | 'again' | 'copy', number> = {} as never;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function sign(userId: number, username: string, role: 'ARTIST' | 'ADMIN' = 'ARTIST'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function register(email: string, displayName: string): Promise<User> {
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { userId: number; username: string };
  return { id: body.userId, username: body.username, token: await sign(body.userId, body.username) };
}

/** A melody over a bass line (as media-processing's fingerprint test): `seed` picks the notes. */
function piece(seed: number, seconds: number): string {
  const note = (rate: string, salt: number, span: number) => `floor(${span}*abs(mod(sin(floor(t*${rate})*${salt})*43758.5453\\,1)))`;
  const melody = `0.5*sin(2*PI*t*220*pow(2\\,${note('4', 12.9898 + seed, 12)}/12))`;
  const bass = `0.3*sin(2*PI*t*110*pow(2\\,${note('1', 4.1414 + seed * 3, 7)}*2/12))`;
  return `aevalsrc=exprs=${melody}+${bass}:s=44100:d=${seconds}`;
}

async function ff(args: string[]): Promise<void> {
  await execFileAsync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', ...args]);
}

async function uploadFinished(user: User, file: string, title: string): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title, genre: 'E2E Duplicates', uploadId: randomUUID() })) form.append(k, v);
  form.append('audioFile', new Blob([await readFile(file)]), path.basename(file));
  const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, { method: 'POST', headers: auth(user.token), body: form });
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = UploadAcceptedSchema.parse(await res.json());
  await waitFor(
    async () => {
      const status = UploadStatusMessageSchema.parse(await (await fleet.fetch(`/api/tracks/${id}/status`, { headers: auth(user.token) })).json());
      if (status.status === 'FAILED') throw new Error(`track ${id} FAILED: ${status.errorMessage}`);
      return status.status === 'FINISHED' || undefined;
    },
    { timeoutMs: 90_000, intervalMs: 200, message: `track ${id} did not finish` },
  );
  return id;
}

async function json(url: string, token?: string): Promise<{ status: number; body: unknown }> {
  const res = await fleet.fetch(url, { headers: token ? auth(token) : {} });
  return { status: res.status, body: await res.json() };
}

const ids = (body: unknown) => (body as { content: Array<{ id: number }> }).content.map((c) => c.id);
const trackStatus = async (id: number, user?: User) => (await json(`/api/tracks/${id}`, user?.token)).status;
const notices = async (user: User) =>
  ((await json('/api/notifications?size=50', user.token)).body as { content: unknown[] }).content.map((n) => NotificationSchema.parse(n));
async function copyrightReports(): Promise<Report[]> {
  const { body } = await json('/api/admin/reports/all?size=100', users.admin.token);
  return (body as { content: unknown[] }).content.map((r) => ReportSchema.parse(r)).filter((r) => r.reason === 'COPYRIGHT');
}
const searchIds = async (user: User) => ids((await json(`/api/search?q=aurora&type=TRACK`, user.token)).body);
const listedIds = async (owner: User, viewer: User) => ids((await json(`/api/users/${owner.id}/tracks`, viewer.token)).body);

beforeAll(async () => {
  await fleet.start({}, { 'media-processing': { JOB_POLL_MS: '200', WORKER_CONCURRENCY: '1' } });
  ffmpeg = (fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>).media.ffmpeg.path;
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-duplicates-'));
  const [original, copier, listener] = [
    await register('original-dup@example.com', 'Original Artist'),
    await register('copier-dup@example.com', 'Copier Artist'),
    await register('listener-dup@example.com', 'Dup Listener'),
  ];
  Object.assign(users, { original, copier, listener, admin: { id: 990_008, username: 'dup-admin', token: await sign(990_008, 'dup-admin', 'ADMIN') } });
  const source = path.join(dir, 'source.wav');
  const again = path.join(dir, 'again.mp3');
  const copy = path.join(dir, 'copy.mp3');
  await ff(['-f', 'lavfi', '-i', piece(3, SECONDS), '-c:a', 'pcm_s16le', '-y', source]);
  // The same artist's re-upload: the whole piece as MP3. Another artist's: MP3 128k, first 5 s cut.
  await ff(['-i', source, '-c:a', 'libmp3lame', '-b:a', '192k', '-y', again]);
  await ff(['-ss', '5', '-i', source, '-c:a', 'libmp3lame', '-b:a', '128k', '-y', copy]);
  // One after the other: each upload is looked up against the ones before it.
  tracks.source = await uploadFinished(original, source, 'Aurora Source');
  tracks.again = await uploadFinished(original, again, 'Aurora Again');
  tracks.copy = await uploadFinished(copier, copy, 'Aurora Copy');
}, 300_000);

afterAll(async () => {
  await fleet.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('SND-1 / NOT-1 re-upload of the same artist', () => {
  it('tells the artist (DUPLICATE_UPLOAD, duplicateOf) and holds nothing back', async () => {
    await waitFor(async () => (await notices(users.original)).some((n) => n.type === 'DUPLICATE_UPLOAD'), { timeoutMs: 30_000, message: 'DUPLICATE_UPLOAD' });
    expect((await notices(users.original)).find((n) => n.type === 'DUPLICATE_UPLOAD')?.resource).toEqual({ resourceType: 'TRACK', resourceId: tracks.again });
    const report = LoudnessReportSchema.parse((await json(`/api/tracks/${tracks.again}/loudness`, users.original.token)).body);
    expect(report.duplicateOf).toBe(tracks.source);
    expect(await trackStatus(tracks.again, users.listener)).toBe(200);
    expect(await searchIds(users.listener)).toContain(tracks.again);
  });
});

describe("TRK-6, USR-18, DSC-3, MOD-5, MOD-7, NOT-1 copy of another artist's track", () => {
  it('holds the copy back from search and lists; its artist and admins still see it', async () => {
    await waitFor(async () => (await trackStatus(tracks.copy, users.listener)) === 404, { timeoutMs: 30_000, message: 'copy held back' });
    expect(await trackStatus(tracks.copy)).toBe(404);
    expect(await searchIds(users.listener)).not.toContain(tracks.copy);
    expect(await searchIds(users.listener)).toContain(tracks.source);
    expect(await listedIds(users.copier, users.listener)).not.toContain(tracks.copy);
    expect(await trackStatus(tracks.copy, users.copier)).toBe(200);
    expect(await listedIds(users.copier, users.copier)).toContain(tracks.copy);
    expect(await trackStatus(tracks.copy, users.admin)).toBe(200);
    const own = LoudnessReportSchema.parse((await json(`/api/tracks/${tracks.copy}/loudness`, users.copier.token)).body);
    expect(own.duplicateOf).toBeNull();
  });

  it('files a COPYRIGHT report with no reporter and the evidence', async () => {
    await waitFor(async () => (await copyrightReports()).some((r) => r.targetId === tracks.copy), { timeoutMs: 30_000, message: 'report' });
    const reports = (await copyrightReports()).filter((r) => r.targetId === tracks.copy);
    expect(reports).toHaveLength(1);
    const [report] = reports;
    expect(report).toMatchObject({ reporterId: null, reporterUsername: null, targetType: 'TRACK', status: 'OPEN', targetUserId: users.copier.id });
    const evidence = report!.evidence!;
    expect([tracks.source, tracks.again]).toContain(evidence.matchedTrackId);
    expect(evidence.matchedArtistId).toBe(users.original.id);
    // The copy starts 5 s into the piece.
    expect(evidence.trackStartSeconds).toBeLessThan(1);
    expect(Math.abs(evidence.matchedStartSeconds - evidence.trackStartSeconds - 5)).toBeLessThan(0.5);
    expect(evidence.trackEndSeconds - evidence.trackStartSeconds).toBeGreaterThan(10);
    expect(evidence.coverage).toBeGreaterThanOrEqual(0.9);
    expect(evidence.score).toBeGreaterThan(0.5);
  });

  it('notifies both artists', async () => {
    await waitFor(async () => (await notices(users.copier)).some((n) => n.type === 'UPLOAD_HELD_BACK'), { timeoutMs: 30_000, message: 'UPLOAD_HELD_BACK' });
    await waitFor(async () => (await notices(users.original)).some((n) => n.type === 'TRACK_COPY_DETECTED'), {
      timeoutMs: 30_000,
      message: 'TRACK_COPY_DETECTED',
    });
    expect((await notices(users.copier)).find((n) => n.type === 'UPLOAD_HELD_BACK')?.resource.resourceId).toBe(tracks.copy);
    expect([tracks.source, tracks.again]).toContain((await notices(users.original)).find((n) => n.type === 'TRACK_COPY_DETECTED')?.resource.resourceId);
  });

  it('DISMISSED (MOD-7) releases the copy', async () => {
    const [report] = (await copyrightReports()).filter((r) => r.targetId === tracks.copy);
    const res = await fleet.fetch(`/api/admin/reports/${report!.id}`, {
      method: 'PATCH',
      headers: { ...auth(users.admin.token), 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'DISMISSED' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.arrayBuffer();
    await waitFor(async () => (await trackStatus(tracks.copy, users.listener)) === 200, { timeoutMs: 30_000, message: 'copy released' });
    expect(await searchIds(users.listener)).toContain(tracks.copy);
    expect(await listedIds(users.copier, users.listener)).toContain(tracks.copy);
  });
});
